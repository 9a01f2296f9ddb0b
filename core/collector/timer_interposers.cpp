// POSIX timers as the target calls them. The collector's own timers (the
// clock plugin's per-thread CPU timers, the periodic sample timer) are
// created with the runtime on the stack; their ids are remembered, and the
// target cannot delete, re-arm or read them: those calls answer EINVAL, as
// they would without collect, where no such timer exists. Every other call
// is forwarded unchanged. (The target's own SIGPROF timers and
// setitimer(ITIMER_PROF) need nothing here: the collector's timers are
// separate POSIX timers whose signals carry a cookie, and the signal chain
// passes the target's SIGPROFs to the target's handler.)
#include <errno.h>
#include <lumen/collector_support.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <atomic>
#include <cstdint>

#include "thread_state.h"

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

// Timers are not inherited by a forked child: its ids are free again.
void forget_all_after_fork() {
  for (auto& slot : g_timers) slot.store(0, std::memory_order_relaxed);
  g_used.store(0, std::memory_order_relaxed);
}
__attribute__((constructor)) void watch_forks() { pthread_atfork(nullptr, nullptr, forget_all_after_fork); }

using Create = int (*)(clockid_t, struct sigevent*, timer_t*);
using Delete = int (*)(timer_t);

int refused() {
  errno = EINVAL;
  return -1;
}

int create(Create real_create, clockid_t clock, struct sigevent* event, timer_t* id) {
  if (real_create == nullptr) return (errno = ENOSYS, -1);
  const int rc = real_create(clock, event, id);
  if (rc == 0 && runtime_on_stack()) remember(*id);
  return rc;
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
#include "timer_functions.def"
#undef TIMER_FUNCTION
