// POSIX timers as the target calls them. The collector's own timers (the
// clock plugin's per-thread CPU timers, the periodic sample timer) are
// created with the runtime on the stack; their ids are remembered, and the
// target cannot delete, re-arm or read them: those calls answer EINVAL, as
// they would without collect, where no such timer exists. Every other call
// is forwarded unchanged. The collector's timers take ids far above the
// ones the kernel hands out in turn (where the kernel lets a process
// choose them), so the program's first timer is id 0, as without collect.
// (The target's own SIGPROF timers and
// setitimer(ITIMER_PROF) need nothing here: the collector's timers are
// separate POSIX timers whose signals carry a cookie, and the signal chain
// passes the target's SIGPROFs to the target's handler.)
#include <errno.h>
#include <lumen/collector_support.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <mutex>

#include <atomic>
#include <cstdint>

#include "interposers/timer_interposers.h"
#include "threads/program_thread_state.h"

using namespace lumen::collector;

namespace {

// id + 1 per slot (a timer id can be 0); 0 is a free slot.
constexpr int kSlots = 8192;
std::atomic<intptr_t> g_timers[kSlots];
std::atomic<int> g_used{0};  // slots at and beyond are free
static_assert(std::atomic<intptr_t>::is_always_lock_free, "read from any thread");

intptr_t key(timer_t id) { return reinterpret_cast<intptr_t>(id) + 1; }

void remember(timer_t id) {
  for (int i = 0; i < kSlots; ++i) {
    intptr_t expected = 0;
    if (g_timers[i].compare_exchange_strong(expected, key(id), std::memory_order_acq_rel)) {
      int used = g_used.load(std::memory_order_relaxed);
      while (used < i + 1 && !g_used.compare_exchange_weak(used, i + 1, std::memory_order_acq_rel)) {}
      return;
    }
  }
}

void forget(timer_t id) {
  const int used = g_used.load(std::memory_order_acquire);
  for (int i = 0; i < used; ++i) {
    intptr_t expected = key(id);
    if (g_timers[i].compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) return;
  }
}

bool collectors(timer_t id) {
  const int used = g_used.load(std::memory_order_acquire);
  for (int i = 0; i < used; ++i)
    if (g_timers[i].load(std::memory_order_acquire) == key(id)) return true;
  return false;
}

bool runtime_on_stack() { return current_thread().interposer_depth > 0; }

using Create = int (*)(clockid_t, struct sigevent*, timer_t*);
using Delete = int (*)(timer_t);

int refused() {
  errno = EINVAL;
  return -1;
}

// prctl(PR_TIMER_CREATE_RESTORE_IDS) (Linux 6.16): while on, timer_create
// takes the id it is given. It is the process's, so the program's own
// timer_create waits while the collector's runs with it on.
#ifndef PR_TIMER_CREATE_RESTORE_IDS
#define PR_TIMER_CREATE_RESTORE_IDS 77
#define PR_TIMER_CREATE_RESTORE_IDS_OFF 0
#define PR_TIMER_CREATE_RESTORE_IDS_ON 1
#endif
constexpr int kFirstCollectorTimerId = 0x40000000;
std::mutex g_creating;
// The id the program's next timer would get, while the collector's own
// chosen ids have moved the kernel's counter (-1: not moved). The counter
// is put back only before the program's next timer_create: a collector
// timer a new thread arms costs three system calls, not seven.
std::atomic<int> g_program_next{-1};  // written with g_creating held

std::atomic<int> g_next_collector_id{kFirstCollectorTimerId};
std::atomic<bool> g_ids_chosen{true};  // false once the kernel refused to let the process choose

long raw_timer_create(clockid_t clock, struct sigevent* event, int* kernel_id) {
  return syscall(SYS_timer_create, clock, event, kernel_id);
}

// The kernel hands out ids in turn from a counter (the next id after the
// last one given, busy ones skipped), and a chosen id moves the counter to
// just after it. Put back at `next`: a timer with the highest free id
// below it, made and deleted, leaves the counter where the busy ids up to
// `next` are skipped. Called with the ids chosen.
void put_id_counter_back(int next) {
  struct sigevent none {};
  none.sigev_notify = SIGEV_NONE;
  for (int below = next - 1, tries = 0; tries < 32; --below, ++tries) {
    int kernel_id = below < 0 ? INT32_MAX : below;  // INT32_MAX: the counter wraps to 0
    if (raw_timer_create(CLOCK_MONOTONIC, &none, &kernel_id) == 0) {
      syscall(SYS_timer_delete, kernel_id);
      return;
    }
    if (errno != EBUSY || below < 0) return;
  }
  int wrap = INT32_MAX;  // no free id close below: the kernel searches from 0
  if (raw_timer_create(CLOCK_MONOTONIC, &none, &wrap) == 0) syscall(SYS_timer_delete, wrap);
}

bool set_restore_ids(bool on) {
  return prctl(PR_TIMER_CREATE_RESTORE_IDS, on ? PR_TIMER_CREATE_RESTORE_IDS_ON : PR_TIMER_CREATE_RESTORE_IDS_OFF, 0, 0,
               0) == 0;
}

// A timer of the collector's, with an id of its own range; false when the
// kernel cannot create one with a chosen id. Called with g_creating held.
bool create_with_collector_id(clockid_t clock, struct sigevent* event, timer_t* id, int* rc) {
  if (!g_ids_chosen.load(std::memory_order_relaxed) || (event != nullptr && event->sigev_notify == SIGEV_THREAD))
    return false;
  if (g_program_next.load(std::memory_order_relaxed) < 0) {  // the id the program's next timer gets: a probe's
    struct sigevent none {};
    none.sigev_notify = SIGEV_NONE;
    int next = 0;
    if (raw_timer_create(CLOCK_MONOTONIC, &none, &next) != 0) return false;
    syscall(SYS_timer_delete, next);
    g_program_next.store(next, std::memory_order_relaxed);
  }
  if (!set_restore_ids(true)) {
    g_ids_chosen.store(false, std::memory_order_relaxed);
    g_program_next.store(-1, std::memory_order_relaxed);  // moved by the probe only, as a program's timer would
    return false;
  }
  int kernel_id = 0;
  long result = -1;
  for (int attempt = 0; attempt < 64; ++attempt) {  // an id still taken (EBUSY): the next one
    kernel_id = g_next_collector_id.fetch_add(1, std::memory_order_relaxed);
    result = raw_timer_create(clock, event, &kernel_id);
    if (result == 0 || errno != EBUSY) break;
  }
  const int saved_errno = errno;
  set_restore_ids(false);
  errno = saved_errno;
  *rc = result == 0 ? 0 : -1;
  // glibc's timer_t for a timer without a notification thread is the
  // kernel's id itself.
  if (result == 0) *id = reinterpret_cast<timer_t>(static_cast<intptr_t>(kernel_id));
  return true;
}

// Before a timer of the program's: the counter where the program left it.
// Called with g_creating held.
void put_back_for_program() {
  const int next = g_program_next.load(std::memory_order_relaxed);
  if (next < 0) return;
  if (set_restore_ids(true)) {
    put_id_counter_back(next);
    set_restore_ids(false);
  }
  g_program_next.store(-1, std::memory_order_relaxed);
}

int create(Create real_create, clockid_t clock, struct sigevent* event, timer_t* id) {
  if (real_create == nullptr) return (errno = ENOSYS, -1);
  if (runtime_on_stack()) {
    int rc = -1;
    bool created;
    {
      const std::lock_guard lock(g_creating);
      created = create_with_collector_id(clock, event, id, &rc);
    }
    if (!created) rc = real_create(clock, event, id);
    if (rc == 0) remember(*id);
    return rc;
  }
  if (!g_ids_chosen.load(std::memory_order_relaxed) && g_program_next.load(std::memory_order_relaxed) < 0)
    return real_create(clock, event, id);
  const std::lock_guard lock(g_creating);
  put_back_for_program();
  return real_create(clock, event, id);
}

int remove(Delete real_delete, timer_t id) {
  if (real_delete == nullptr) return (errno = ENOSYS, -1);
  if (collectors(id)) {
    if (!runtime_on_stack()) return refused();
    forget(id);
  }
  return real_delete(id);
}

// timer_settime, _gettime, _getoverrun: refused on the collector's timers.
template <typename Function, typename... Args>
int unless_collectors(Function* real, timer_t id, Args... args) {
  if (collectors(id) && !runtime_on_stack()) return refused();
  return real != nullptr ? real(id, args...) : (errno = ENOSYS, -1);
}

}  // namespace

#define TIMER_FUNCTION(name, Result, params, symbol, version, binding, call) \
  LUMEN_VERSIONED_INTERPOSER(lumen_timer_##name, Result, params, symbol, version, binding, call);
#include "interposers/timer_functions.def"
#undef TIMER_FUNCTION

// Run by the runtime's first fork handler (fork_safety.cpp), before the
// child's restart arms its clock timers: handlers registered on their own
// ran after that restart, which then waited for ever on a lock a thread of
// the parent held at the fork, or had its new timers forgotten.
void lumen::collector::timer_interposers_after_fork() {
  // Timers are not inherited by a forked child: its ids are free again.
  for (auto& slot : g_timers) slot.store(0, std::memory_order_relaxed);
  g_used.store(0, std::memory_order_relaxed);
  new (&g_creating) std::mutex;
  g_program_next.store(-1, std::memory_order_relaxed);  // a child's counter is its own, from 0
}
