#include "lifecycle/plugin_host.h"

#include <lumen/collector_plugin.h>

#include <dlfcn.h>

#include <atomic>
#include <cstddef>
#include <cstring>

#include <vector>

#include "interposers/call_redirection.h"
#include "stacks/blocked_stack.h"
#include "time/clock.h"
#include "threads/own_threads_alive.h"
#include "lifecycle/experiment_log.h"
#include "stacks/loadobject_tracker.h"
#include "lifecycle/runtime_state.h"
#include "lifecycle/recording_control.h"
#include "stacks/reusable_capture.h"
#include "threads/own_thread_start.h"
#include "sdk_compatibility.h"
#include "periodic/periodic_work.h"
#include "signals/signal_chain.h"
#include "stacks/stack_capture.h"
#include "recording/stream_writer.h"
#include "procfs/task_file_reader.h"
#include "threads/own_descriptor_table.h"
#include "stacks/stack_table.h"
#include "threads/program_thread_state.h"
#include "time/test_clock_skew.h"
#include "time/tsc_clock.h"

namespace lumen::collector {

namespace {

struct StartedPlugin {
  void* library;  // closed only by a detach (plugins_unload): see started()
  lumen_collector_descriptor descriptor;  // as this runtime knows it (read_sized)
};

// Function-local so they exist before the runtime's constructor runs, and
// leaked on purpose: plugins must outlive every thread that may still call
// into them while the process exits.
std::vector<StartedPlugin>& started() {
  static auto* plugins = new std::vector<StartedPlugin>;
  return *plugins;
}
std::string& experiment_directory() {
  static auto* directory = new std::string;
  return *directory;
}

// Each data file a plugin opens is logged: a plugin may open its file late
// (MPI's at MPI_Init), so only the log says a missing file was ever made.
lumen_stream runtime_open_stream(const char* name) {
  const int stream = open_stream(experiment_directory().c_str(), name);
  if (stream >= 0) {
    char fields[160];
    std::snprintf(fields, sizeof fields, "name: %s", yaml_quoted(name).c_str());
    experiment_log_short_event(metadata::log_event::kDataFileCreated, fields);
  }
  return stream;
}
// While recording is paused, plugins' events are not written (nor are
// their stacks interned); that is not a drop.
int runtime_write_record(lumen_stream stream, uint16_t kind, const void* payload, uint16_t bytes) {
  if (paused()) return 0;
  return write_record(stream, kind, payload, bytes) ? 1 : 0;
}
int runtime_recording_now() { return collecting() && !paused() ? 1 : 0; }
int runtime_write_kept_record(lumen_stream stream, uint16_t kind, const void* payload, uint16_t bytes) {
  if (size_limit_reached()) return 0;
  return write_record(stream, kind, payload, bytes) ? 1 : 0;
}
uint64_t runtime_capture_stack(void* ucontext, int skip) {
  return paused() ? LUMEN_NO_STACK : capture_stack(ucontext, skip + 1);
}
uint64_t runtime_capture_stack_under(void* ucontext, const uint64_t* leaf_pcs, uint32_t leaf_count) {
  if (paused() || ucontext == nullptr) return LUMEN_NO_STACK;
  return capture_stack_under(ucontext, leaf_pcs, leaf_count);
}
// Each thread's latest reading, the floor of plugins' coarser clocks.
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_latest_now_ns;

// The floor only rises for the thread's own code: a handler's later
// reading in between is kept, or at worst (between the compare and the
// store) lowered to the reading this code made, never below it. A reading
// below the floor (a stamp that extended a line just replaced) returns the
// floor: a thread's stamps never go back.
uint64_t runtime_now_ns() {
#ifdef LUMEN_TEST_HOOKS
  const uint64_t now = test_clock_skewed(tsc_now_ns());
#else
  const uint64_t now = tsc_now_ns();
#endif
  const uint64_t latest = t_latest_now_ns;
  if (now <= latest) return latest;
  t_latest_now_ns = now;
  return now;
}
const volatile uint64_t* runtime_latest_now_of_thread() { return &t_latest_now_ns; }
// As runtime_capture_stack: one frame more, this one.
uint64_t runtime_capture_stack_reusing(lumen_capture_cache* cache, int skip) {
  return paused() ? LUMEN_NO_STACK : capture_stack_reusing(cache, skip + 1);
}
uint32_t runtime_thread_id() { return current_tid(); }
uint64_t runtime_thread_created_ns() { return current_thread().created_ns; }
void runtime_log_note(const char* text) { experiment_log_event(metadata::log_event::kNote, "text: " + yaml_quoted(text)); }

// A thread's collection ends with its thread_end: what glibc runs on it
// after that (thread-specific data destructors, libunwind's own cache among
// them, taking libunwind's lock) is not traced, nor counted as a drop.
// Cancellation is disabled inside, as for RuntimeGuard (program_thread_state.h);
// the state to restore is stored once the depth shows the thread inside,
// so a handler entering meanwhile keeps its own.
int runtime_enter() {
  ThreadState& thread = current_thread();
  if (thread.finished || thread.interposer_depth != 0) return 0;
  const int before = disable_cancellation();
  ++thread.interposer_depth;
  thread.cancel_state_to_restore = before;
  return 1;
}
void runtime_leave() {
  ThreadState& thread = current_thread();
  const int before = thread.cancel_state_to_restore;
  --thread.interposer_depth;
  restore_cancellation(before);
}
int runtime_collecting() { return collecting() ? 1 : 0; }
int runtime_attached() { return attached() ? 1 : 0; }
int runtime_set_frame_provider(lumen_frame_provider provider) {
  return stack_capture_set_frame_provider(provider) ? 0 : -1;
}

// Only a collector thread may leave the program's table.
int runtime_own_descriptor_table() { return is_collector_thread() && take_own_descriptor_table() ? 0 : -1; }

int runtime_run_periodic(uint64_t period_ns, void (*tick)()) {
  return plugin_periodic_start(static_cast<long long>(period_ns), tick) ? 0 : -1;
}
uint64_t runtime_capture_stack_of_blocked(uint64_t pc, uint64_t sp, uint64_t bp, uint64_t* stack_end) {
  if (paused()) {
    *stack_end = 0;
    return LUMEN_NO_STACK;
  }
  return capture_blocked_stack(pc, sp, bp, stack_end);
}
uint64_t runtime_intern_stack(const uint64_t* pcs, uint32_t count, uint32_t flags) {
  if (pcs == nullptr || count == 0) return LUMEN_NO_STACK;
  if (count > LUMEN_MAX_STACK_DEPTH) {
    count = LUMEN_MAX_STACK_DEPTH;
    flags |= LUMEN_STACK_TRUNCATED;
  }
  return stack_table_intern(pcs, count, flags & (LUMEN_STACK_TRUNCATED | LUMEN_STACK_LEAF_IS_RETURN));
}
const volatile lumen_latest_stacks* runtime_latest_stacks_of_thread() {
  using Latest = ThreadState::LatestStacks;
  static_assert(sizeof(Latest) == sizeof(lumen_latest_stacks) && offsetof(Latest, stack) == offsetof(lumen_latest_stacks, stack) &&
                    offsetof(Latest, sample_ns) == offsetof(lumen_latest_stacks, sample_ns) &&
                    offsetof(Latest, sample_stack) == offsetof(lumen_latest_stacks, sample_stack),
                "read by another thread as lumen_latest_stacks");
  return reinterpret_cast<const volatile lumen_latest_stacks*>(&current_thread().latest);
}

// A plugin thread's start, in a slot of its own: neither the creator nor
// the new thread allocates (a collector thread's first malloc or free
// gives it an arena of its own: 64 MiB of the program's address space).
struct PluginThread {
  void* (*body)(void*);
  void* argument;
  std::atomic<bool> taken{false};
};
PluginThread g_plugin_thread_starts[16];

void* run_plugin_thread(void* start) {
  auto* slot = static_cast<PluginThread*>(start);
  const RuntimeGuard guard;  // the runtime's own for its whole life
  void* (*const body)(void*) = slot->body;
  void* const argument = slot->argument;
  slot->taken.store(false, std::memory_order_release);
  mark_collector_thread();
  void* const result = body(argument);
  collector_thread_ends();
  finish_thread_streams();  // its blocks' unused tails back to holes
  return result;
}

int runtime_start_thread(void* (*body)(void*), void* argument) {
  if (body == nullptr) return -1;
  const RuntimeGuard guard;
  for (PluginThread& slot : g_plugin_thread_starts) {
    bool free_slot = false;
    if (!slot.taken.compare_exchange_strong(free_slot, true, std::memory_order_acq_rel)) continue;
    slot.body = body;
    slot.argument = argument;
    pthread_t thread;
    if (!start_runtime_thread(&thread, run_plugin_thread, &slot, 256 * 1024)) {
      slot.taken.store(false, std::memory_order_release);
      return -1;
    }
    pthread_detach(thread);
    return 0;
  }
  return -1;  // as many starting at once as slots: the plugin is told
}

const lumen_recording_service kRecording = {
    .size = sizeof(lumen_recording_service),
    .open_stream = runtime_open_stream,
    .write_record = runtime_write_record,
    .count_drop = count_plugin_dropped_record,
    .log_note = runtime_log_note,
    .founder_directory = founder_directory_path,
    .recording_now = runtime_recording_now,
    .write_kept_record = runtime_write_kept_record,
};
const lumen_stack_service kStacks = {
    .size = sizeof(lumen_stack_service),
    .capture_stack = runtime_capture_stack,
    .capture_stack_reusing = runtime_capture_stack_reusing,
    .capture_stack_of_blocked = runtime_capture_stack_of_blocked,
    .latest_stacks_of_thread = runtime_latest_stacks_of_thread,
    .set_frame_provider = runtime_set_frame_provider,
    .intern_stack = runtime_intern_stack,
    .capture_stack_under = runtime_capture_stack_under,
};
const lumen_time_service kTime = {
    .size = sizeof(lumen_time_service),
    .now_ns = runtime_now_ns,
    .latest_now_of_thread = runtime_latest_now_of_thread,
    .map_change_ns = loadobject_latest_change_ns,
};
const lumen_thread_service kThreads = {
    .size = sizeof(lumen_thread_service),
    .thread_id = runtime_thread_id,
    .thread_created_ns = runtime_thread_created_ns,
    .collector_thread_ids = collector_thread_ids,
    .read_task_files = read_task_files,
    .run_in_own_table = run_in_own_table,
};
const lumen_signal_service kSignals = {
    .size = sizeof(lumen_signal_service),
    .claim_signal = claim_signal,
    .observe_signal = observe_signal,
};
const lumen_work_service kWork = {
    .size = sizeof(lumen_work_service),
    .run_periodic = runtime_run_periodic,
    .start_thread = runtime_start_thread,
    .own_descriptor_table = runtime_own_descriptor_table,
};
const lumen_guard_service kGuard = {
    .size = sizeof(lumen_guard_service),
    .collecting = runtime_collecting,
    .enter = runtime_enter,
    .leave = runtime_leave,
    .attached = runtime_attached,
};
const lumen_runtime kRuntime = {
    .size = sizeof(lumen_runtime),
    .sdk_major = LUMEN_SDK_VERSION_MAJOR,
    .sdk_minor = LUMEN_SDK_VERSION_MINOR,
    .recording = &kRecording,
    .stacks = &kStacks,
    .time = &kTime,
    .threads = &kThreads,
    .signals = &kSignals,
    .work = &kWork,
    .guard = &kGuard,
};


void log_failure(const std::string& plugin, const std::string& message) {
  experiment_log_event(metadata::log_event::kPluginFailed, "plugin: " + yaml_quoted(plugin) + ", message: " + yaml_quoted(message));
}

}  // namespace

// The planned collector half, as collect preloaded it (RTLD_NOLOAD: the
// same object, not a second copy), or opened now when it was not; null
// with `why` when neither works.
void* open_collector_half(const std::string& path, std::string* why) {
  void* library = dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
  if (library == nullptr) library = dlopen(path.c_str(), RTLD_LAZY);
  if (library == nullptr) {
    const char* error = dlerror();
    *why = error != nullptr ? error : "cannot be opened";
  }
  return library;
}

void plugins_start(const metadata::CollectionPlan& plan, const std::string& directory) {
  experiment_directory() = directory;
  for (const metadata::PlannedPlugin& planned : plan.plugins) {
    const std::string path = planned.collector_path.string();
    std::string why;
    void* library = open_collector_half(path, &why);
    if (library == nullptr) {
      log_failure(planned.name, why);
      continue;
    }
    // A half refused before its start ran nothing: it is closed again.
    const auto refuse = [&](const std::string& why) {
      log_failure(planned.name, why);
      dlclose(library);
    };
    using Factory = const lumen_collector_descriptor* (*)();
    const auto factory = reinterpret_cast<Factory>(dlsym(library, LUMEN_COLLECTOR_FACTORY));
    if (factory == nullptr) {
      refuse(path + " has no " LUMEN_COLLECTOR_FACTORY " factory");
      continue;
    }
    const lumen_collector_descriptor* given = factory();
    if (given == nullptr) {
      refuse(path + ": its factory returned nothing");
      continue;
    }
    if (const std::string refusal =
            metadata::sdk_refusal(planned.name + " (" + path + ")", {given->sdk_major, given->sdk_minor});
        !refusal.empty()) {
      refuse(refusal);
      continue;
    }
    const lumen_collector_descriptor descriptor_read = metadata::read_sized(*given);
    const lumen_collector_descriptor* descriptor = &descriptor_read;
    if (descriptor->start == nullptr) {
      refuse(path + " has no start function");
      continue;
    }
    // Code of the collector half is left out of the target's stacks.
    stack_capture_exclude_object_of(reinterpret_cast<const void*>(descriptor->start));
    std::vector<lumen_option_value> options;
    for (const auto& [key, value] : planned.options) options.push_back({key.c_str(), value.c_str()});
    char error[512] = "";
    if (descriptor->start(&kRuntime, options.data(), options.size(), error, sizeof error) != 0) {
      log_failure(planned.name, error);
      continue;
    }
    experiment_log_event(metadata::log_event::kPluginStarted, "plugin: " + yaml_quoted(descriptor->name) +
                         ", version: " + yaml_quoted(descriptor->version) + ", time_ns: " +
                         std::to_string(monotonic_ns()));
    started().push_back({library, *descriptor});
  }
}

void plugins_set_directory(const std::string& directory) { experiment_directory() = directory; }

void plugins_thread_begin() {
  for (const StartedPlugin& p : started())
    if (p.descriptor.thread_begin) p.descriptor.thread_begin();
}

void plugins_thread_end() {
  for (const StartedPlugin& p : started())
    if (p.descriptor.thread_end) p.descriptor.thread_end();
}

void plugins_fork_child() {
  for (const StartedPlugin& p : started())
    if (p.descriptor.fork_child) p.descriptor.fork_child();
}

void plugins_stop() {
  for (const StartedPlugin& p : started())
    if (p.descriptor.stop) p.descriptor.stop();
}

// Last loaded, first closed: glibc takes back a library's static TLS only
// while it is the last taken, so closing in the order of loading would
// lose the plugins' share at every detach, and the process would refuse
// the plugins after a few attaches ("cannot allocate memory in static TLS
// block"). The runtime, loaded before them, is closed after them.
void plugins_unload() {
  for (auto p = started().rbegin(); p != started().rend(); ++p) dlclose(p->library);
  started().clear();
}

namespace {

std::atomic<bool> g_interposing{false};

bool interposes(const lumen_collector_descriptor& d) { return (d.attach & LUMEN_INTERPOSES_AFTER_ATTACH) != 0; }

// Every object but the dynamic linker's, the vDSO, and the collector's
// (libunwind's close and pipe2 lead to the runtime already).
bool is_traced_object(const char* path) {
  for (const char* not_traced : {"/ld-linux", "linux-vdso", "/liblumen_collector", "/lumen/plugins/", "/libunwind"})
    if (std::strstr(path, not_traced) != nullptr) return false;
  return true;
}

}  // namespace

int plugins_interpose_program_calls() {
  g_interposing.store(true, std::memory_order_release);
  int slots = 0;
  for (const StartedPlugin& p : started())
    if (interposes(p.descriptor))
      slots += redirect_calls_to_interposers(is_traced_object, reinterpret_cast<const void*>(p.descriptor.start));
  return slots;
}

void plugins_stop_interposing() {
  if (!g_interposing.exchange(false, std::memory_order_acq_rel)) return;
  restore_calls_to_interposers();
}

bool plugins_interposing() { return g_interposing.load(std::memory_order_acquire); }

bool plugins_have_interposers() {
  for (const StartedPlugin& p : started())
    if (interposes(p.descriptor)) return true;
  return false;
}

int plugins_calls_in_progress() {
  int calls = 0;
  for (const StartedPlugin& p : started())
    if (interposes(p.descriptor) && p.descriptor.calls_in_progress != nullptr) calls += p.descriptor.calls_in_progress();
  return calls;
}

}  // namespace lumen::collector
