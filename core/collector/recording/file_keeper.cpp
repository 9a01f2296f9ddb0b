#include "recording/file_keeper.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

#include "recording/runtime_fds.h"
#include "threads/own_descriptor_table.h"
#include "threads/own_thread_start.h"
#include "threads/own_threads_alive.h"
#include "threads/program_thread_state.h"

namespace lumen::collector {

namespace {

// A call passes from the asking thread (any context, maybe a signal
// handler) to the keeper through its slot's state; only the side that
// moved the state on touches work and argument until it moves it again.
enum KeeperCallState : int { kKeeperCallFree, kKeeperCallClaimed, kKeeperCallAsked, kKeeperCallRunning, kKeeperCallDone };

struct KeeperCall {
  std::atomic<int> state{kKeeperCallFree};
  void (*work)(void*) = nullptr;
  void* argument = nullptr;
  // A posted call: its values travel in the slot, and the keeper frees it.
  void (*posted)(const PostedValues&) = nullptr;
  PostedValues values{};
};

// Enough for every thread of a busy program asking at once; one that finds
// none free waits for one.
constexpr int kKeeperCalls = 64;
KeeperCall g_keeper_calls[kKeeperCalls];
std::atomic<int> g_keeper_slots_freed{0};  // bumped as a slot is freed; askers without one wait on it
std::atomic<int> g_keeper_slot_waiters{0};

std::atomic<bool> g_keeper_running{false};
std::atomic<int> g_keeper_stop{0};
std::atomic<int> g_keeper_asked{0};  // bumped by every call; the keeper sleeps on it
std::atomic<int> g_keeper_sleeping{0};
pthread_t g_keeper;
// 0 while the thread starts, then kKeeperTableTaken or kKeeperNoTable.
enum KeeperReadiness : int { kKeeperStarting, kKeeperTableTaken, kKeeperNoTable };
std::atomic<int> g_keeper_readiness{kKeeperStarting};
__attribute__((tls_model("initial-exec"))) thread_local bool t_keeper = false;
// How many calls of this thread wait for the keeper (a handler's over its own).
__attribute__((tls_model("initial-exec"))) thread_local int t_waiting = 0;
std::atomic<pid_t> g_keeper_tid{0};

// A keeper that has not answered in this long is taken as gone: a file
// system that stalls a write for longer loses records, not the program.
constexpr long long kKeeperPatienceNs = 5'000'000'000;

long long keeper_now_ns() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1'000'000'000ll + now.tv_nsec;
}

void keeper_futex_wait(std::atomic<int>& word, int value, long long timeout_ns) {
  timespec timeout{static_cast<time_t>(timeout_ns / 1'000'000'000), static_cast<long>(timeout_ns % 1'000'000'000)};
  syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAIT_PRIVATE, value, &timeout, nullptr, 0);
}

void keeper_futex_wake(std::atomic<int>& word, int count) {
  syscall(SYS_futex, reinterpret_cast<int*>(&word), FUTEX_WAKE_PRIVATE, count, nullptr, nullptr, 0);
}

void free_keeper_call(KeeperCall& call) {
  call.state.store(kKeeperCallFree, std::memory_order_release);
  g_keeper_slots_freed.fetch_add(1);
  if (g_keeper_slot_waiters.load() != 0) keeper_futex_wake(g_keeper_slots_freed, 1);
}

// Wakes the keeper if it sleeps. Sequentially consistent with its
// announcing sleep and re-reading g_keeper_asked: no call is missed.
void ask_keeper() {
  g_keeper_asked.fetch_add(1);
  if (g_keeper_sleeping.load() != 0) keeper_futex_wake(g_keeper_asked, 1);
}

void run_asked_keeper_calls() {
  for (KeeperCall& call : g_keeper_calls) {
    int asked = kKeeperCallAsked;
    if (!call.state.compare_exchange_strong(asked, kKeeperCallRunning, std::memory_order_acquire)) continue;
    if (call.posted != nullptr) {
      call.posted(call.values);
      free_keeper_call(call);
      continue;
    }
    call.work(call.argument);
    call.state.store(kKeeperCallDone, std::memory_order_release);
    keeper_futex_wake(call.state, 1);
  }
}

void* keep(void*) {
  const RuntimeGuard guard;  // the runtime's own thread for its whole life
  pthread_setname_np(pthread_self(), "lumen-files");
  collector_thread_begins();
  g_keeper_tid.store(static_cast<pid_t>(syscall(SYS_gettid)), std::memory_order_release);
  t_keeper = true;
  // A table with none of the program's descriptors: the runtime's files
  // opened from now on are here only.
  const bool taken = take_own_descriptor_table(false);
  g_keeper_readiness.store(taken ? kKeeperTableTaken : kKeeperNoTable, std::memory_order_release);
  keeper_futex_wake(g_keeper_readiness, 1);  // the starting thread waits for the outcome
  if (!taken) {
    collector_thread_ends();
    return nullptr;
  }
  for (int seen = g_keeper_asked.load();;) {
    run_asked_keeper_calls();
    if (g_keeper_stop.load(std::memory_order_acquire) != 0) break;
    g_keeper_sleeping.store(1);
    if (g_keeper_asked.load() == seen) keeper_futex_wait(g_keeper_asked, seen, 1'000'000'000);
    g_keeper_sleeping.store(0);
    seen = g_keeper_asked.load();
  }
  run_asked_keeper_calls();  // those asked before the stop was seen
  collector_thread_ends();
  return nullptr;
}

KeeperCall* claim_keeper_call(long long deadline) {
  for (;;) {
    const int freed = g_keeper_slots_freed.load();
    for (KeeperCall& call : g_keeper_calls) {
      int free = kKeeperCallFree;
      if (call.state.compare_exchange_strong(free, kKeeperCallClaimed, std::memory_order_acquire)) return &call;
    }
    if (keeper_now_ns() > deadline) return nullptr;
    g_keeper_slot_waiters.fetch_add(1);
    keeper_futex_wait(g_keeper_slots_freed, freed, 10'000'000);
    g_keeper_slot_waiters.fetch_sub(1);
  }
}

}  // namespace

bool file_keeper_start() {
  if (g_keeper_running.load(std::memory_order_acquire)) return true;
  if (room_above_programs_descriptors()) return false;
  g_keeper_tid.store(0, std::memory_order_release);
  g_keeper_stop.store(0, std::memory_order_release);
  g_keeper_readiness.store(kKeeperStarting, std::memory_order_release);
  if (!start_runtime_thread(&g_keeper, keep, nullptr, 64 * 1024)) return false;
  // No file is opened before the thread has its own table, where it goes.
  while (g_keeper_readiness.load(std::memory_order_acquire) == kKeeperStarting)
    keeper_futex_wait(g_keeper_readiness, kKeeperStarting, 10'000'000);
  if (g_keeper_readiness.load(std::memory_order_acquire) != kKeeperTableTaken) {
    pthread_join(g_keeper, nullptr);
    return false;
  }
  g_keeper_running.store(true, std::memory_order_release);
  return true;
}

void file_keeper_stop() {
  if (!g_keeper_running.exchange(false, std::memory_order_acq_rel)) return;
  g_keeper_stop.store(1, std::memory_order_release);
  g_keeper_asked.fetch_add(1);
  keeper_futex_wake(g_keeper_asked, 1);
  const RuntimeGuard guard;
  pthread_join(g_keeper, nullptr);
}

void file_keeper_forget_after_fork() {
  g_keeper_running.store(false, std::memory_order_relaxed);
  g_keeper_stop.store(0, std::memory_order_relaxed);
  for (KeeperCall& call : g_keeper_calls) call.state.store(kKeeperCallFree, std::memory_order_relaxed);
}

pid_t file_keeper_tid() { return files_on_keeper() ? g_keeper_tid.load(std::memory_order_acquire) : 0; }

bool waiting_for_file_keeper() { return t_waiting > 0; }

bool files_on_keeper() { return g_keeper_running.load(std::memory_order_acquire); }

bool with_runtime_files(void (*work)(void*), void* argument) {
  if (!files_on_keeper() || t_keeper) {
    work(argument);
    return true;
  }
  struct Waiting {
    Waiting() { ++t_waiting; }
    ~Waiting() { --t_waiting; }
  } waiting;
  const long long deadline = keeper_now_ns() + kKeeperPatienceNs;
  KeeperCall* call = claim_keeper_call(deadline);
  if (call == nullptr) return false;
  call->work = work;
  call->argument = argument;
  call->posted = nullptr;
  call->state.store(kKeeperCallAsked, std::memory_order_release);
  ask_keeper();
  for (int state; (state = call->state.load(std::memory_order_acquire)) != kKeeperCallDone;) {
    // Not yet taken by a keeper that stopped or stalled: withdrawn. One
    // running has the argument in hand and is waited for.
    if (state == kKeeperCallAsked && (!files_on_keeper() || keeper_now_ns() > deadline)) {
      int asked = kKeeperCallAsked;
      if (call->state.compare_exchange_strong(asked, kKeeperCallClaimed, std::memory_order_acq_rel)) {
        free_keeper_call(*call);
        return false;
      }
      continue;
    }
    keeper_futex_wait(call->state, state, 100'000'000);
  }
  free_keeper_call(*call);
  return true;
}

void post_to_file_keeper(void (*work)(const PostedValues&), const PostedValues& values) {
  if (!files_on_keeper() || t_keeper) return work(values);
  KeeperCall* call = claim_keeper_call(keeper_now_ns() + kKeeperPatienceNs);
  if (call == nullptr) return;
  call->posted = work;
  call->values = values;
  call->state.store(kKeeperCallAsked, std::memory_order_release);
  ask_keeper();
}

}  // namespace lumen::collector
