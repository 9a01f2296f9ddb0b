#include "sample_thread.h"

#include <dlfcn.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <climits>

#include <lumen/collector_support.h>

#include "stream_writer.h"
#include "thread_state.h"

namespace lumen::collector {

namespace {

using PthreadCreate = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

long long g_period_ns = 0;
void (*g_tick)() = nullptr;
pthread_t g_thread;
bool g_running = false;
// 0 while the thread should run, 1 once asked to stop: also the futex word
// the thread sleeps on, so that a stop wakes it without a signal.
std::atomic<int> g_stop{0};
static_assert(sizeof(std::atomic<int>) == sizeof(int), "used as a futex word");

timespec plus(timespec at, long long ns) {
  at.tv_sec += static_cast<time_t>(ns / 1'000'000'000);
  at.tv_nsec += static_cast<long>(ns % 1'000'000'000);
  if (at.tv_nsec >= 1'000'000'000) {
    at.tv_nsec -= 1'000'000'000;
    ++at.tv_sec;
  }
  return at;
}

// Sleeps until `deadline` (CLOCK_MONOTONIC) or a stop; true when stopped.
bool sleep_until(const timespec& deadline) {
  while (g_stop.load(std::memory_order_acquire) == 0) {
    const long rc = syscall(SYS_futex, reinterpret_cast<int*>(&g_stop), FUTEX_WAIT_BITSET_PRIVATE, 0, &deadline,
                            nullptr, FUTEX_BITSET_MATCH_ANY);
    if (rc != 0 && errno == ETIMEDOUT) return g_stop.load(std::memory_order_acquire) != 0;
  }
  return true;
}

void* run(void*) {
  sigset_t all;
  sigfillset(&all);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, nullptr, sizeof(long));  // inherited already; made sure
  {
    const RuntimeGuard guard;  // the runtime's own thread: never traced
    pthread_setname_np(pthread_self(), "lumen-samples");
  }
  timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (;;) {
    next = plus(next, g_period_ns);
    if (sleep_until(next)) break;
    const RuntimeGuard guard;
    g_tick();
  }
  const RuntimeGuard guard;
  finish_thread_streams();
  return nullptr;
}

bool create() {
  static const auto real_create = lumen::next_function<PthreadCreate>("pthread_create", "GLIBC_2.34");
  if (real_create == nullptr) return false;
  g_stop.store(0, std::memory_order_release);
  // Created with every signal blocked, so it never takes one meant for the
  // process (a process-directed signal goes to a thread that does not
  // block it), not even between its start and its own mask call.
  sigset_t all, previous;
  sigfillset(&all);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, &previous, sizeof(long));
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, 256 * 1024);
  const RuntimeGuard guard;
  g_running = real_create(&g_thread, &attributes, run, nullptr) == 0;
  pthread_attr_destroy(&attributes);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &previous, nullptr, sizeof(long));
  return g_running;
}

}  // namespace

bool sample_thread_start(long long period_ns, void (*tick)()) {
  g_period_ns = period_ns;
  g_tick = tick;
  if (period_ns <= 0 || tick == nullptr) return true;
  return create();
}

void sample_thread_stop() {
  if (!g_running) return;
  g_running = false;
  g_stop.store(1, std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<int*>(&g_stop), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
  const RuntimeGuard guard;
  pthread_join(g_thread, nullptr);
}

void sample_thread_after_fork() {
  g_running = false;
  if (g_period_ns > 0 && g_tick != nullptr) create();
}

}  // namespace lumen::collector
