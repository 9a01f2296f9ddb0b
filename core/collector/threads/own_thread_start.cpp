#include "threads/own_thread_start.h"

#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <lumen/collector_support.h>

#include <linux/futex.h>

#include <atomic>

#include "threads/own_threads_alive.h"
#include "threads/program_thread_state.h"

namespace lumen::collector {

namespace {

// A start's slot, from the creator's claim until the new thread has read
// it: the creator goes on at once, so the slot outlives its call.
enum StartState : int {
  kStartFree,
  kStartClaimed,
  kStartListed,    // the creator listed the thread: it may run (and frees the slot)
  kStartUnlisted,  // it lists itself, and the creator waits for that
  kStartKnown,     // it did: the creator frees the slot
};
struct Start {
  void* (*body)(void*);
  void* argument;
  std::atomic<int> state{kStartFree};
};
constexpr int kStarts = 32;
// constinit: no constructor may clear a start under way (this file's
// initializers can run after the runtime's, which starts threads).
constinit Start g_starts[kStarts];
constinit std::atomic<void (*)(uint32_t)> g_told{nullptr};

void start_futex(std::atomic<int>& word, int operation, int value) {
  syscall(SYS_futex, reinterpret_cast<int*>(&word), operation, value, nullptr, nullptr, 0);
}

// A futex wait, not a sleep: a sleep from a thread collect -P stopped
// would end its own interrupted sleep early. Nor a yield: on a busy CPU
// each gives a whole time slice away (2-3 ms seen).
int await_change(std::atomic<int>& word, int from) {
  int now;
  while ((now = word.load(std::memory_order_acquire)) == from) start_futex(word, FUTEX_WAIT_PRIVATE, from);
  return now;
}

Start* claim_start() {
  for (Start& start : g_starts) {
    int free = kStartFree;
    if (start.state.compare_exchange_strong(free, kStartClaimed, std::memory_order_acquire)) return &start;
  }
  return nullptr;
}

void* listed_then_run(void* opaque) {
  auto* start = static_cast<Start*>(opaque);
  // Its body runs only once it is listed, so its end (which unlists it)
  // comes after.
  const int state = await_change(start->state, kStartClaimed);
  void* (*const body)(void*) = start->body;
  void* const argument = start->argument;
  collector_thread_begins();
  if (state == kStartListed) {
    start->state.store(kStartFree, std::memory_order_release);
  } else {
    start->state.store(kStartKnown, std::memory_order_release);
    start_futex(start->state, FUTEX_WAKE_PRIVATE, 1);  // the slot is the creator's from here
  }
  return body(argument);
}

// The new thread's id, as the kernel wrote it into glibc's thread
// descriptor before clone returned: its CPU clock names it
// (MAKE_THREAD_CPUCLOCK: the id's complement, shifted by 3). 0 if unknown.
uint32_t created_tid(pthread_t thread) {
  clockid_t clock;
  if (pthread_getcpuclockid(thread, &clock) != 0 || (clock & 7) != 6) return 0;
  const long tid = ~(static_cast<long>(clock) >> 3);
  return tid > 0 ? static_cast<uint32_t>(tid) : 0;
}

}  // namespace

bool start_runtime_thread(pthread_t* thread, void* (*body)(void*), void* argument, size_t stack_bytes) {
  using PthreadCreate = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
  static const auto real_create = lumen::next_function<PthreadCreate>("pthread_create", "GLIBC_2.34");
  if (real_create == nullptr) return false;
  Start* start = claim_start();
  if (start == nullptr) return false;  // as many starting at once as slots
  start->body = body;
  start->argument = argument;
  sigset_t all, previous;
  sigfillset(&all);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &previous, sizeof(long));
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, stack_bytes);
  const RuntimeGuard guard;
  const bool started = real_create(thread, &attributes, listed_then_run, start) == 0;
  pthread_attr_destroy(&attributes);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &previous, nullptr, sizeof(long));
  if (!started) {
    start->state.store(kStartFree, std::memory_order_release);
    return false;
  }
  // Listed before the creator goes on, and without waiting for the new
  // thread to run (on a busy machine each would wait for a CPU): collect
  // -P's roll call, which may stop it at its first instruction, finds it
  // so and leaves it be.
  if (const uint32_t tid = created_tid(*thread); tid != 0) {
    collector_thread_created(tid);
    if (void (*const told)(uint32_t) = g_told.load(std::memory_order_acquire)) told(tid);
    start->state.store(kStartListed, std::memory_order_release);
    start_futex(start->state, FUTEX_WAKE_PRIVATE, 1);
    return true;
  }
  start->state.store(kStartUnlisted, std::memory_order_release);
  start_futex(start->state, FUTEX_WAKE_PRIVATE, 1);
  await_change(start->state, kStartUnlisted);
  start->state.store(kStartFree, std::memory_order_release);
  return true;
}

void tell_runtime_threads_to(void (*told)(uint32_t tid)) { g_told.store(told, std::memory_order_release); }

}  // namespace lumen::collector
