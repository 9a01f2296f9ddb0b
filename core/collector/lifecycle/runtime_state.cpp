#include "lifecycle/runtime_state.h"

#include <lumen/record_format.h>
#include <dlfcn.h>
#include <pthread.h>
#include <unistd.h>

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include "interposers/call_redirection.h"
#include "interposers/thread_interposers.h"
#include "stacks/blocked_stack.h"
#include "time/clock.h"
#include "threads/own_thread_start.h"
#include "threads/own_threads_alive.h"
#include "lifecycle/collector_variables.h"
#include "processes/descendant_header.h"
#include "processes/descendants.h"
#include "lifecycle/experiment_log.h"
#include "processes/fork_safety.h"
#include "stacks/loadobject_tracker.h"
#include "lifecycle/plugin_host.h"
#include "processes/process_ending.h"
#include "processes/program_end.h"
#include "stacks/reusable_capture.h"
#include "recording/file_keeper.h"
#include "recording/run_pool.h"
#include "periodic/periodic_work.h"
#include "collection_plan.h"
#include "lifecycle/recording_control.h"
#include "periodic/sample_points.h"
#include "stacks/stack_capture.h"
#include "stacks/stack_table.h"
#include "stacks/unwinder_validation.h"
#include "recording/stream_writer.h"
#include "procfs/task_file_reader.h"
#include "threads/program_thread_state.h"
#include "time/test_clock_skew.h"
#include "time/tsc_clock.h"
#include "stacks/vdso_image.h"

extern "C" int lumen_pipe2(int fds[2], int flags);
extern "C" int lumen_close(int fd);

namespace lumen::collector {

namespace {

std::atomic<bool> g_collecting{false};
std::atomic<bool> g_sandboxed{false};  // a thread entered seccomp: new threads are not collected
std::atomic<bool> g_process_sandboxed{false};  // every thread is in a seccomp filter
thread_local bool t_sandboxed = false;           // this thread entered seccomp
int g_loadobjects_stream = -1;
int g_samples_stream = -1;

// Function-local so they exist before this library's constructor runs.
metadata::CollectionPlan& plan() {
  static auto* the_plan = new metadata::CollectionPlan;
  return *the_plan;
}
std::string& founder_directory() {
  static auto* directory = new std::string;
  return *directory;
}

// The line's start is built before any handler may need it; the handler
// that reaches the limit adds when (digits by hand: no stdio in a handler)
// and writes it with one write().
char g_size_limit_line[160];
size_t g_size_limit_line_bytes = 0;
void log_size_limit_reached() {
  char line[sizeof g_size_limit_line + 32];
  std::memcpy(line, g_size_limit_line, g_size_limit_line_bytes);
  size_t at = g_size_limit_line_bytes;
  char digits[24];
  size_t count = 0;
  for (uint64_t now = monotonic_ns(); count == 0 || now != 0; now /= 10) digits[count++] = static_cast<char>('0' + now % 10);
  while (count > 0) line[at++] = digits[--count];
  line[at++] = '}';
  line[at++] = '\n';
  experiment_log_write_prepared(line, at);
}

void apply_size_limit(long long bytes) {
  if (bytes <= 0) return;
  g_size_limit_line_bytes = static_cast<size_t>(std::snprintf(g_size_limit_line, sizeof g_size_limit_line,
      "- {event: %s, limit_bytes: %lld, time_ns: ", metadata::log_event::kSizeLimitReached, bytes));
  set_size_limit(static_cast<uint64_t>(bytes), log_size_limit_reached);
}

std::string sub_experiment(const std::string& lineage) { return founder_directory() + "/" + lineage + ".er"; }

void log_start(const std::string& lineage) {
  experiment_log_event(metadata::log_event::kStart, "pid: " + std::to_string(getpid()) + ", ppid: " + std::to_string(getppid()) +
                       ", lineage: " + yaml_quoted(lineage) + ", time_ns: " + std::to_string(monotonic_ns()));
}

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (char& c : line) c = c == '\0' ? ' ' : c;
  return line;
}

}  // namespace

const char* founder_directory_path() { return founder_directory().c_str(); }

namespace {

std::atomic<bool> g_attached{false};  // loaded into a running process (collect -P)

// Calls the runtime must see, which the dynamic linker binds to its
// interposers when it is preloaded, are redirected when it was loaded into
// a running process. libunwind's pipe2 and close, so its validation pipe
// is the runtime's:
bool is_libunwind(const char* path) { return std::strstr(path, "/libunwind") != nullptr; }

// libunwind gives each thread it unwound a value under a key of its own,
// whose destructor (its code) glibc runs as the thread exits, and never
// deletes the key: unloaded with the runtime at a detach, it would leave
// the program's threads a destructor at an unmapped address. It stays
// loaded for good, as it does anyway where libstdc++ came with the runtime.
void keep_libunwind_loaded() {
  for (const char* name : {"libunwind.so.8", "libunwind-x86_64.so.8"})
    dlopen(name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

void redirect_calls_after_attach() {
  redirect_calls(is_libunwind, "pipe2", reinterpret_cast<void*>(lumen_pipe2));
  redirect_calls(is_libunwind, "close", reinterpret_cast<void*>(lumen_close));
  redirect_program_calls();
}

// Names a collector thread in the log (below).
void log_collector_thread(uint32_t tid);

// What collection is, from the plan on: the same for a process collect
// started and one it attached to, where the program's calls are not
// interposed (descendants, pthread_exit of main and exit statuses are not
// followed, and collect starts each thread's collection).
bool begin_collection(bool attached) {
  CollectorVariables& variables = collector_variables();
  const RuntimeGuard guard;
  tsc_clock_init();
#ifdef LUMEN_TEST_HOOKS
  test_clock_skew_init();
#endif
  on_periodic_thread_begin(mark_collector_thread);
  tell_runtime_threads_to(log_collector_thread);  // each named as it is started
  // Whatever this process starts next is told apart by its own pid.
  variables.target_pid = std::to_string(getpid());
  founder_directory() = variables.experiment;
  const std::string lineage = variables.lineage;
  std::string error;
  const std::string plan_file = founder_directory() + "/" + metadata::kPlanFile;
  std::ifstream plan_text(plan_file);
  if (!plan_text || !metadata::read_plan(plan_text, plan_file, plan(), error)) return false;
  if (!lineage.empty() && !follows(plan().follow, command_line())) return false;
  const std::string directory = lineage.empty() ? founder_directory() : sub_experiment(lineage);
  if (!lineage.empty()) mkdir(directory.c_str(), 0755);
  // Before the first file is opened. Not into a process collect attached
  // to: its detach runs on threads collect stops, one of which may wait for
  // the keeper; there the files take the highest free numbers, while
  // attached.
  if (!attached) file_keeper_start();
  // Attached, the runtime's first file waits for the program's descriptor
  // table to grow (an RCU grace period, 10-16 ms): the /proc reader starts
  // meanwhile, ready for the plugins' first requests.
  if (attached) task_file_reader_start();
  if (!experiment_log_open(directory)) return false;
  log_collector_threads_started();
  log_start(lineage);
  g_attached.store(attached, std::memory_order_release);
  if (attached) {
    experiment_log_event(metadata::log_event::kAttached, "time_ns: " + std::to_string(monotonic_ns()));
    keep_libunwind_loaded();
    redirect_calls_after_attach();
  }
  emulate_unwinder_validation_pipe();
  stack_capture_init();
  blocked_stack_prepare();
  fork_safety_init();
  apply_size_limit(plan().runtime.size_limit_bytes);
  const int stacks = open_stream(directory.c_str(), LUMEN_STACKS_FILE);
  g_loadobjects_stream = open_stream(directory.c_str(), LUMEN_LOADOBJECTS_FILE);
  if (stacks < 0 || g_loadobjects_stream < 0 || !stack_table_init(stacks)) {
    experiment_log_event(metadata::log_event::kError, "message: \"cannot create the stack table or its data files\"");
    return false;
  }
  loadobject_tracker_start(g_loadobjects_stream);
  reusable_capture_watch_map_changes(loadobject_latest_change_ns());
  save_vdso_image(directory);
  g_samples_stream = open_stream(directory.c_str(), LUMEN_SAMPLES_FILE);
  recording_control_start(plan());
  samples_start(g_samples_stream, plan());
  descendants_start(lineage, plan().follow);
  plugins_start(plan(), directory);
  if (!lineage.empty()) write_descendant_header(directory, lineage, plan());
  if (!attached) process_ending_start(directory, lineage.empty(), plan().runtime.size_limit_bytes != 0);
  run_pool_start(mark_collector_thread);
  if (!attached) program_end_watch_start();
  g_collecting.store(true, std::memory_order_release);
  if (!attached) plugins_thread_begin();
  return true;
}

}  // namespace

void start_collection() {
  take_collector_variables();
  CollectorVariables& variables = collector_variables();
  if (!variables.present) return;
  if (variables.target_pid != "any" && std::atol(variables.target_pid.c_str()) != static_cast<long>(getpid())) return;
  begin_collection(false);
}

bool start_attached_collection(const char* experiment) {
  if (collecting() || experiment == nullptr) return false;
  stack_capture_unwinder_loaded_late();
  CollectorVariables& variables = collector_variables();
  variables.present = true;
  variables.experiment = experiment;
  variables.lineage.clear();
  return begin_collection(true);
}

bool attached() { return g_attached.load(std::memory_order_acquire); }

namespace {

// How much of the data files' page work the run pool took off the
// program's threads.
void log_run_pool() {
  const RunPoolCounts runs = run_pool_counts();
  if (runs.prepared == 0 && runs.handed_back == 0 && runs.first_prepared == 0) return;
  const std::string text = "data files: " + std::to_string(runs.taken) + " of " + std::to_string(runs.prepared) +
                           " runs prepared ahead taken by writing threads (" + std::to_string(runs.passed_over) +
                           " passed over), " + std::to_string(runs.first_taken) + " of " +
                           std::to_string(runs.first_prepared) + " first blocks prepared ahead taken by new threads, " +
                           std::to_string(runs.handed_back) + " used runs unmapped off them";
  experiment_log_event(metadata::log_event::kNote, "text: " + yaml_quoted(text));
}

// Where the time stamps came from, and how far the TSC's lines strayed.
void log_tsc_clock() {
  const TscClockReport clock = tsc_clock_report();
  const std::string text =
      clock.tsc ? "time stamps: the TSC at " + std::to_string(clock.ticks_per_ms) + " ticks a millisecond, " +
                      std::to_string(clock.lines) + " lines redrawn, the largest step from CLOCK_MONOTONIC at a redraw " +
                      std::to_string(clock.largest_step_ns) + " ns"
                : std::string("time stamps: clock_gettime (no invariant TSC)");
  experiment_log_event(metadata::log_event::kNote, "text: " + yaml_quoted(text));
}

// The end event's map of why records were dropped (", dropped_causes:
// {block_busy: 2}"), empty when none were.
std::string dropped_causes_entry() {
  std::string causes;
  for (int i = 0; i < static_cast<int>(DropCause::kCount); ++i) {
    const auto cause = static_cast<DropCause>(i);
    if (const uint64_t count = dropped_records(cause); count != 0)
      causes += std::string(causes.empty() ? "" : ", ") + drop_cause_name(cause) + ": " + std::to_string(count);
  }
  return causes.empty() ? "" : ", dropped_causes: {" + causes + "}";
}

}  // namespace

void stop_collection() {
  const RuntimeGuard guard;
  if (!g_collecting.exchange(false, std::memory_order_acq_rel)) return;
  program_end_watch_stop();
  plugin_periodic_stop_all();  // plugins stop with no tick of theirs running
  plugins_stop();
  plugins_thread_end();
  task_file_reader_stop();  // after the plugins' last readings
  samples_stop();
  run_pool_stop();
  log_run_pool();
  log_tsc_clock();
  record_waited_children(founder_directory(), children_started() > 0);
  std::string failed_file;
  int failed_errno = 0;
  if (first_write_failure(&failed_file, &failed_errno))
    experiment_log_event(metadata::log_event::kWriteFailed, "time_ns: " + std::to_string(monotonic_ns()) +
                         ", file: " + yaml_quoted(failed_file) + ", errno: " + std::to_string(failed_errno) +
                         ", error: " + yaml_quoted(std::strerror(failed_errno)));
  experiment_log_event(metadata::log_event::kEnd, "time_ns: " + std::to_string(monotonic_ns()) +
                       ", dropped_records: " + std::to_string(dropped_records()) + dropped_causes_entry());
  finish_thread_streams();
  file_keeper_stop();  // a file used later (the process ending) is opened where it is used
}

void restart_in_forked_child(const std::string& lineage) {
  // A child inherits its parent's seccomp filter: not collected either.
  if (g_sandboxed.load(std::memory_order_acquire)) {
    stop_in_forked_child();
    return;
  }
  const RuntimeGuard guard;
  forget_collector_threads();  // the parent's
  // The log is still the parent's until the child's opens: the child's
  // first threads are named after that.
  tell_runtime_threads_to(nullptr);
  const std::string directory = sub_experiment(lineage);
  run_pool_forget_after_fork();  // before the parent's runs are let go here
  file_keeper_forget_after_fork();
  file_keeper_start();
  if (mkdir(directory.c_str(), 0755) != 0 || !redirect_streams_after_fork(directory.c_str())) {
    stop_in_forked_child();
    return;
  }
  setenv("LUMEN_LINEAGE", lineage.c_str(), 1);
  setenv("LUMEN_TARGET_PID", std::to_string(getpid()).c_str(), 1);
  experiment_log_open(directory);
  log_start(lineage);
  log_collector_threads_started();
  tell_runtime_threads_to(log_collector_thread);
  stack_table_reset();
  task_file_reader_after_fork();
  current_thread().latest.stack.store(LUMEN_NO_STACK, std::memory_order_relaxed);  // the parent's table's
  current_thread().latest.sample_stack.store(LUMEN_NO_STACK, std::memory_order_relaxed);
  current_thread().created_ns = 0;  // the child's thread was made by fork, before collection began here
  loadobject_tracker_start(g_loadobjects_stream);
  save_vdso_image(directory);
  samples_after_fork();
  plugins_set_directory(directory);
  plugins_fork_child();
  write_descendant_header(directory, lineage, plan());
  process_ending_after_fork(directory);
  plugins_thread_begin();  // the child's own timers and counters
  plugin_periodic_after_fork();
  run_pool_start(mark_collector_thread);
  program_end_watch_after_fork();
}

void stop_in_forked_child() {
  // The child shares the parent's mapped blocks; writing there would corrupt
  // the parent's data. It is not collected (its timers are not inherited).
  g_collecting.store(false, std::memory_order_relaxed);
  forget_collector_threads();
  tell_runtime_threads_to(nullptr);
  process_ending_forget();
  task_file_reader_after_fork();
  run_pool_forget_after_fork();
  file_keeper_forget_after_fork();
  abandon_streams_after_fork();
  plugin_periodic_forget();
  program_end_watch_forget();
  plugins_fork_child();
}

bool collecting() { return g_collecting.load(std::memory_order_acquire); }

void runtime_thread_begin() {
  const RuntimeGuard guard;
  if (!collecting() || g_sandboxed.load(std::memory_order_acquire)) return;
  current_thread().collection_began = true;
  plugins_thread_begin();
}

void end_collection_for_sandbox(unsigned long mode) {
  {
    const RuntimeGuard guard;
    const std::string text = "thread " + std::to_string(current_tid()) + " entered seccomp's " +
                             (mode == 1 ? "strict mode" : "filter mode") +
                             ", where a system call collection makes may kill the process: its collection ended "
                             "there, and threads created after it were not collected";
    experiment_log_event(metadata::log_event::kNote, "text: " + yaml_quoted(text));
  }
  g_sandboxed.store(true, std::memory_order_release);
  t_sandboxed = true;
  runtime_thread_end();
}

bool sandboxed_here() { return t_sandboxed || g_process_sandboxed.load(std::memory_order_acquire); }

void end_collection_for_sandboxed_process() {
  {
    const RuntimeGuard guard;
    const std::string text = "thread " + std::to_string(current_tid()) +
                             " put every thread of the process in a seccomp filter, where a system call collection "
                             "makes may kill the process: the process's collection ended there";
    experiment_log_event(metadata::log_event::kNote, "text: " + yaml_quoted(text));
  }
  g_sandboxed.store(true, std::memory_order_release);
  stop_collection();
  g_process_sandboxed.store(true, std::memory_order_release);
}

namespace {

void log_collector_thread(uint32_t tid) {
  char field[32];
  std::snprintf(field, sizeof field, "tid: %u", tid);
  experiment_log_short_event(metadata::log_event::kCollectorThread, field);
}

}  // namespace

void mark_collector_thread() {
  // Also while collection starts (plugins start their threads then). One
  // start_runtime_thread listed was named by its starter.
  const RuntimeGuard guard;
  if (collector_thread_begins()) log_collector_thread(current_tid());
}

// Started before the log they would write to is open.
void log_collector_threads_started() {
  uint32_t tids[32];
  const size_t count = collector_thread_ids(tids, std::size(tids));
  for (size_t i = 0; i < count; ++i) log_collector_thread(tids[i]);
}

void runtime_thread_end() {
  const RuntimeGuard guard;
  retire_thread_state();  // taken over once the thread is gone
  current_thread().collection_began = false;
  if (!collecting()) return;
  plugins_thread_end();
  finish_thread_streams();
}

}  // namespace lumen::collector
