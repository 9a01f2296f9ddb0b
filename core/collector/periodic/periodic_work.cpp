#include "periodic/periodic_work.h"

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

#include "threads/own_descriptor_table.h"
#include "threads/own_threads_alive.h"
#include "threads/own_thread_start.h"
#include "recording/stream_writer.h"
#include "threads/program_thread_state.h"

namespace lumen::collector {

namespace {

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

PeriodicThread g_sample_thread;
std::atomic<void (*)()> g_thread_begins{nullptr};

constexpr int kMaxPluginThreads = 8;
PeriodicThread g_plugin_threads[kMaxPluginThreads];
int g_plugin_thread_count = 0;

}  // namespace

// Sleeps until `deadline` (CLOCK_MONOTONIC) or a stop; true when stopped.
bool PeriodicThread::sleep_until(const timespec& deadline) {
  while (stop_.load(std::memory_order_acquire) == 0) {
    const long rc = syscall(SYS_futex, reinterpret_cast<int*>(&stop_), FUTEX_WAIT_BITSET_PRIVATE, 0, &deadline,
                            nullptr, FUTEX_BITSET_MATCH_ANY);
    if (rc != 0 && errno == ETIMEDOUT) return stop_.load(std::memory_order_acquire) != 0;
  }
  return true;
}

void* PeriodicThread::run(void* argument) {
  auto* self = static_cast<PeriodicThread*>(argument);
  sigset_t all;
  sigfillset(&all);
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, nullptr, sizeof(long));  // inherited already; made sure
  {
    const RuntimeGuard guard;  // the runtime's own thread: never traced
    pthread_setname_np(pthread_self(), self->name_);
  }
  if (const auto begins = g_thread_begins.load(std::memory_order_acquire)) begins();
  if (self->own_table_) take_own_descriptor_table();
  timespec next;
  clock_gettime(CLOCK_MONOTONIC, &next);
  for (;;) {
    next = plus(next, self->period_ns_);
    if (self->sleep_until(next)) break;
    const RuntimeGuard guard;
    self->tick_();
    // A tick that overran its period starts the next one a period from now,
    // rather than catching up in a burst.
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) next = now;
  }
  const RuntimeGuard guard;
  collector_thread_ends();
  finish_thread_streams();
  return nullptr;
}

bool PeriodicThread::create() {
  stop_.store(0, std::memory_order_release);
  running_ = start_runtime_thread(&thread_, run, this, 256 * 1024);
  return running_;
}

bool PeriodicThread::start(long long period_ns, void (*tick)(), const char* name, bool own_table) {
  period_ns_ = period_ns;
  tick_ = tick;
  name_ = name;
  own_table_ = own_table;
  if (period_ns <= 0 || tick == nullptr) return true;
  return create();
}

void PeriodicThread::stop() {
  if (!running_) return;
  running_ = false;
  stop_.store(1, std::memory_order_release);
  syscall(SYS_futex, reinterpret_cast<int*>(&stop_), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
  const RuntimeGuard guard;
  pthread_join(thread_, nullptr);
}

void PeriodicThread::stop_from_its_tick() {
  running_ = false;
  stop_.store(1, std::memory_order_release);
  pthread_detach(pthread_self());
}

void PeriodicThread::after_fork() {
  running_ = false;
  if (period_ns_ > 0 && tick_ != nullptr) create();
}

void on_periodic_thread_begin(void (*begins)()) { g_thread_begins.store(begins, std::memory_order_release); }

bool sample_thread_start(long long period_ns, void (*tick)()) {
  return g_sample_thread.start(period_ns, tick, "lumen-samples", true);
}
void sample_thread_stop() { g_sample_thread.stop(); }
void sample_thread_after_fork() { g_sample_thread.after_fork(); }

bool plugin_periodic_start(long long period_ns, void (*tick)()) {
  if (g_plugin_thread_count == kMaxPluginThreads) return false;
  return g_plugin_threads[g_plugin_thread_count++].start(period_ns, tick, "lumen-periodic");
}
void plugin_periodic_stop_all() {
  for (int i = 0; i < g_plugin_thread_count; ++i) g_plugin_threads[i].stop();
}
void plugin_periodic_after_fork() {
  for (int i = 0; i < g_plugin_thread_count; ++i) g_plugin_threads[i].after_fork();
}
void plugin_periodic_forget() {
  for (int i = 0; i < g_plugin_thread_count; ++i) g_plugin_threads[i].forget();
}

}  // namespace lumen::collector
