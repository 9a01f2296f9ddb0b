// The runtime's periodic work that is not CPU-time sampling (collect -S
// sample points, plugins' off-CPU sampling) runs on threads of its own with
// every signal blocked: a signal would cut the program's sleep, poll or
// condition wait short (signal(7), "Interruption of system calls"), and
// these threads never send one. The program never sees them except as more
// tasks in /proc, and no plugin's thread_begin runs on them.
#pragma once

#include <atomic>
#include <cstdint>

#include <pthread.h>

namespace lumen::collector {

// One collector thread calling `tick` every `period_ns` of CLOCK_MONOTONIC
// (first one period after the start) until stopped.
class PeriodicThread {
 public:
  // Not signal-safe. A period <= 0 starts nothing. False when the thread
  // could not be created. `own_table`: the thread takes a descriptor table
  // of its own (own_descriptor_table.h) before its first tick.
  bool start(long long period_ns, void (*tick)(), const char* name, bool own_table = false);
  // Not signal-safe. Wakes the thread at once, waits for its end; a tick in
  // progress finishes first.
  void stop();
  // Not signal-safe. From its own tick: the thread ends after the tick,
  // detached, and stop() no longer waits for it.
  void stop_from_its_tick();
  // In a forked child: the parent's thread does not exist here; start anew
  // with the same period and tick.
  void after_fork();
  // In a forked child that is not collected: forget the parent's thread.
  void forget() { running_ = false; }

  static void* run(void* self);

 private:
  bool create();
  bool sleep_until(const struct timespec& deadline);

  long long period_ns_ = 0;
  void (*tick_)() = nullptr;
  const char* name_ = "lumen";
  bool own_table_ = false;
  pthread_t thread_{};
  bool running_ = false;
  // 0 while the thread should run, 1 once asked to stop: also the futex word
  // the thread sleeps on, so that a stop wakes it without a signal.
  std::atomic<int> stop_{0};
};

// Not signal-safe. What each periodic thread runs first, on itself (the
// runtime marks it as the collector's own).
void on_periodic_thread_begin(void (*begins)());

// The collect -S sample thread.
bool sample_thread_start(long long period_ns, void (*tick)());
void sample_thread_stop();
void sample_thread_after_fork();

// Plugins' periodic threads (lumen_work_service.run_periodic), at most a few per
// process. Stopped before plugins stop; restarted in a collected child.
bool plugin_periodic_start(long long period_ns, void (*tick)());
void plugin_periodic_stop_all();
void plugin_periodic_after_fork();
void plugin_periodic_forget();

}  // namespace lumen::collector
