// Start and stop of the collector runtime in the target process.
//
// collect preloads this library with LUMEN_EXPERIMENT (the experiment
// directory) and LUMEN_TARGET_PID (the process it started). Any other process
// that inherits the environment leaves collection alone.
#include <lumen/record_format.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "clock.h"
#include "experiment_log.h"
#include "loadobject_tracker.h"
#include "plugin_host.h"
#include "runtime_plan.h"
#include "runtime_state.h"
#include "stack_capture.h"
#include "stack_table.h"
#include "stream_writer.h"
#include "thread_state.h"

namespace lumen::collector {

namespace {

std::atomic<bool> g_collecting{false};

bool is_collected_process() {
  const char* directory = std::getenv("LUMEN_EXPERIMENT");
  const char* target = std::getenv("LUMEN_TARGET_PID");
  return directory != nullptr && target != nullptr && std::atol(target) == static_cast<long>(getpid());
}

void after_fork_in_child() {
  // The child shares the parent's mapped blocks; writing there would corrupt
  // the parent's data. It is not collected (its timers are not inherited).
  g_collecting.store(false, std::memory_order_relaxed);
  abandon_streams_after_fork();
}

void start() {
  if (!is_collected_process()) return;
  const RuntimeGuard guard;
  const std::string directory = std::getenv("LUMEN_EXPERIMENT");
  if (!experiment_log_open(directory)) return;
  experiment_log_write("event: start, pid: " + std::to_string(getpid()) + ", ppid: " + std::to_string(getppid()) +
                       ", time_ns: " + std::to_string(monotonic_ns()));
  RuntimePlan plan;
  std::string error;
  if (!read_runtime_plan(directory + "/collector.plan", plan, error)) {
    experiment_log_write("event: error, message: " + yaml_quoted(error));
    return;
  }
  stack_capture_init();
  const int stacks = open_stream(directory.c_str(), LUMEN_STACKS_FILE);
  const int loadobjects = open_stream(directory.c_str(), LUMEN_LOADOBJECTS_FILE);
  if (stacks < 0 || loadobjects < 0 || !stack_table_init(stacks)) {
    experiment_log_write("event: error, message: \"cannot create the stack table or its data files\"");
    return;
  }
  loadobject_tracker_start(loadobjects);
  pthread_atfork(nullptr, nullptr, after_fork_in_child);
  plugins_start(plan, directory);
  g_collecting.store(true, std::memory_order_release);
  plugins_thread_begin();
}

void stop() {
  const RuntimeGuard guard;
  if (!g_collecting.exchange(false, std::memory_order_acq_rel)) return;
  plugins_stop();
  plugins_thread_end();
  experiment_log_write("event: end, time_ns: " + std::to_string(monotonic_ns()) +
                       ", dropped_records: " + std::to_string(dropped_records()));
  finish_thread_streams();
}

__attribute__((constructor)) void lumen_collector_start() { start(); }
__attribute__((destructor)) void lumen_collector_stop() { stop(); }

}  // namespace

bool collecting() { return g_collecting.load(std::memory_order_acquire); }

void runtime_thread_begin() {
  const RuntimeGuard guard;
  if (collecting()) plugins_thread_begin();
}

void runtime_thread_end() {
  const RuntimeGuard guard;
  if (!collecting()) return;
  plugins_thread_end();
  finish_thread_streams();
}

}  // namespace lumen::collector
