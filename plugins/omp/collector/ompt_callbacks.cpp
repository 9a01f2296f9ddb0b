// The OMPT callbacks: the same records as libgomp's interposers write.
//   parallel_begin/end    a region (its encountering thread's stack in the
//                         runtime's fork call, its begin and end)
//   implicit_task         each thread's task in a region
//   sync_region_wait      barriers (explicit, implicit), taskwait, taskgroup
//   mutex_acquire/ired    locks, critical, ordered, atomic
//   task_create/schedule  explicit tasks (ompt_tasks.cpp)
// A thread's wait at the end of its region is not recorded: as under
// libgomp, the analysis implies it from the end of the thread's task to
// the end of the region, and a worker's idle time from there to its next
// task. libomp reports a worker's end-of-region barrier and the end of its
// task only when the worker is released for its next region, so the task
// ends here where that barrier begins. Callbacks run in ordinary context
// on the thread concerned; their state is the thread's own.
#include <dlfcn.h>
#include <signal.h>

#include <atomic>
#include <cstdint>
#include <type_traits>

#include <lumen/collector_support.h>

#include "omp_collector.h"
#include "ompt_tool.h"

namespace lumen::omp {

namespace {

constexpr int kDepth = 8;  // nesting kept per thread; deeper levels are not recorded

struct OpenRegion {
  uint64_t id;
  uint64_t parent;
  uint64_t stack;
  uint64_t begin_ns;
  const void* codeptr;
  uint32_t requested;
  uint32_t team;
  uint64_t task_begin_ns;  // the encountering thread's own task, written with the region
  uint64_t task_end_ns;    // 0: not ended yet
};

struct OpenTask {
  uint64_t region_id;
  uint64_t begin_ns;
  const void* codeptr;  // the region's call, where the encountering thread's end barrier is
  uint32_t thread_num;
  bool ended;           // ended at its region's barrier, already recorded (or kept in its region)
  bool in_region;       // the encountering thread's: its times go into its region's record
};

struct OpenWait {
  uint64_t begin_ns;
  uint64_t stack;
  uint64_t object;
  uint16_t kind;
  bool implied;  // the region's end barrier: the analysis implies it
};

// Trivially constructible, as ThreadState below: a thread_local with a
// constructor is initialized on first use behind a guard variable that the
// compiler reaches through __tls_get_addr on every access (the tls_model
// does not extend to it); zero-initialized, the state needs no guard.
template <typename Frame>
struct FrameStack {
  Frame frames[kDepth];
  int depth;
  Frame* push() { return depth++ < kDepth ? &frames[depth - 1] : nullptr; }
  Frame* top() { return depth > 0 && depth <= kDepth ? &frames[depth - 1] : nullptr; }
  bool pop(Frame* out) {
    if (depth == 0) return false;
    const bool kept = depth <= kDepth;
    if (kept) *out = frames[depth - 1];
    --depth;
    return kept;
  }
};

struct ThreadState {
  FrameStack<OpenRegion> regions;
  FrameStack<OpenTask> tasks;
  FrameStack<OpenWait> waits;
  OpenWait mutex;
  bool mutex_open;
};
static_assert(std::is_trivially_default_constructible_v<ThreadState>, "t_state needs no guard");
__attribute__((tls_model("initial-exec"))) thread_local ThreadState t_state;

// The runtime's ompt_get_state, which the OpenMP 5 specification makes
// safe to call in a signal handler; NULL until the tool is initialized.
std::atomic<ompt_get_state_t> g_get_state{nullptr};
std::atomic<bool> g_observing{false};

// [signal-safe] At each delivery of clock profiling's SIGPROF, just before
// the clock plugin's handler samples the thread (the signal stays blocked
// until both have run): the thread's OpenMP state, so the analysis knows
// what the runtime said the thread was doing at that very sample
// (OmpState). Deliveries that are not a timer's carry no sample.
int observe_clock_signal(int, siginfo_t* info, void*) {
  const ompt_get_state_t get_state = g_get_state.load(std::memory_order_acquire);
  if (info == nullptr || info->si_code != SI_TIMER || get_state == nullptr || !ompt_active()) return 0;
  const lumen_runtime* runtime = recording_runtime();
  if (runtime == nullptr) return 0;
  ErrnoKept errno_kept;
  OmpState state{};
  ompt_wait_id_t wait_id = 0;
  state.state = static_cast<uint32_t>(get_state(&wait_id));
  state.wait_id = wait_id;
  state.thread_id = runtime->threads->thread_id();
  // Read last, so that the sample's own time follows it closely: the
  // analysis shows the state's artificial function at the sample through a
  // short stretch after this time (omp_view_modes.cpp).
  state.time_ns = runtime->time->now_ns();
  write_state(state);
  return 0;
}

// The runtime function that calls every region's body on every thread:
// the anchor where a task's stack is cut and continued with its region's
// call (a frame of the runtime, which the view modes hide).
uint64_t g_body_caller = 0;

template <typename Event, typename... Args>
void chain(ompt_callbacks_t event, Args... args) {
  if (ompt_callback_t next = chained_callback(event)) reinterpret_cast<Event>(next)(args...);
}

WaitKind sync_wait_kind(ompt_sync_region_t kind) {
  switch (kind) {
    case ompt_sync_region_barrier_explicit:
    case ompt_sync_region_barrier:
      return WaitKind::kExplicitBarrier;
    case ompt_sync_region_taskwait:
    case ompt_sync_region_taskgroup:
      return WaitKind::kTaskwait;
    case ompt_sync_region_reduction:
      return WaitKind::kReduction;
    default:
      return WaitKind::kImplicitBarrier;
  }
}

void write_task_now(const lumen_runtime* runtime, const OpenTask& task) {
  ErrnoKept errno_kept;
  TraceGuard guard(runtime);
  if (guard)
    write_task(guard, OmpTask{task.region_id, task.begin_ns, runtime->time->now_ns(), runtime->threads->thread_id(),
                              task.thread_num});
}

// Ends the thread's task: the encountering thread's is kept in its open
// region, to be written with it (one record rather than two); a worker's
// is written now.
void end_task(const lumen_runtime* runtime, const OpenTask& task) {
  if (task.in_region) {
    OpenRegion* region = t_state.regions.top();
    if (region != nullptr && region->id == task.region_id) {
      region->task_end_ns = runtime->time->now_ns();
      return;
    }
  }
  write_task_now(runtime, task);
}

// The region's record; with its encountering thread's task in it when that
// task ended inside the region and its times fit the record's offsets.
void write_region_now(const lumen_runtime* runtime, const OpenRegion& open) {
  ErrnoKept errno_kept;
  TraceGuard guard(runtime);
  if (!guard) return;
  const OmpRegion region{open.id,        open.parent,  open.stack,          g_body_caller, open.begin_ns,
                         runtime->time->now_ns(), runtime->threads->thread_id(), open.team, open.requested, 0};
  write_region_with_task(guard, region, open.task_begin_ns, open.task_end_ns);
}

void on_parallel_begin(ompt_data_t* encountering_task, const ompt_frame_t* frame, ompt_data_t* parallel_data,
                       unsigned int requested, int flags, const void* codeptr) {
  parallel_data->value = 0;
  if (const lumen_runtime* runtime = recording_runtime()) {
    parallel_data->value = next_region_id();
    if (OpenRegion* region = t_state.regions.push()) {
      const uint64_t stack = callback_stack(runtime, site_cache(Site::kOmptRegion));
      *region = OpenRegion{
          parallel_data->value, current_region(), stack, runtime->time->now_ns(), codeptr, requested, 0, 0, 0};
    }
  }
  chain<ompt_callback_parallel_begin_t>(ompt_callback_parallel_begin, encountering_task, frame, parallel_data,
                                        requested, flags, codeptr);
}

void on_parallel_end(ompt_data_t* parallel_data, ompt_data_t* encountering_task, int flags, const void* codeptr) {
  OpenRegion* top = t_state.regions.top();
  if (top == nullptr || top->id != parallel_data->value) top = nullptr;
  OpenRegion region;
  if (top != nullptr) {
    // The encountering thread's task, still open (its end not seen inside
    // the region): written on its own when it ends.
    OpenTask* task = t_state.tasks.top();
    if (task != nullptr && task->region_id == top->id && task->in_region && !task->ended) task->in_region = false;
  }
  if (top != nullptr && t_state.regions.pop(&region)) {
    if (const lumen_runtime* runtime = recording_runtime()) write_region_now(runtime, region);
  }
  chain<ompt_callback_parallel_end_t>(ompt_callback_parallel_end, parallel_data, encountering_task, flags, codeptr);
}

void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data, ompt_data_t* task_data,
                      unsigned int actual_parallelism, unsigned int index, int flags) {
  const lumen_runtime* runtime = recording_runtime();
  if ((flags & ompt_task_initial) == 0) {
    if (endpoint == ompt_scope_begin) {
      const uint64_t region_id = parallel_data != nullptr ? parallel_data->value : 0;
      OpenRegion* region = t_state.regions.top();
      const void* codeptr = nullptr;
      const uint64_t begin = runtime != nullptr ? runtime->time->now_ns() : 0;
      const bool in_region = index == 0 && region != nullptr && region->id == region_id && region_id != 0;
      if (in_region) {
        region->team = actual_parallelism;
        region->task_begin_ns = begin;
        codeptr = region->codeptr;
      }
      if (OpenTask* task = t_state.tasks.push()) *task = OpenTask{region_id, begin, codeptr, index, false, in_region};
      set_current_region(region_id);
    } else {
      OpenTask task;
      if (t_state.tasks.pop(&task) && !task.ended && task.region_id != 0 && runtime != nullptr)
        end_task(runtime, task);
      const OpenTask* outer = t_state.tasks.top();
      set_current_region(outer != nullptr ? outer->region_id : 0);
    }
  }
  chain<ompt_callback_implicit_task_t>(ompt_callback_implicit_task, endpoint, parallel_data, task_data,
                                       actual_parallelism, index, flags);
}

// The barrier that ends the thread's task in its region: the implicit
// barrier at the region's call on the encountering thread, and one with no
// call site on a worker (a worksharing construct's barrier has its own).
bool ends_task(ompt_sync_region_t kind, const OpenTask* task, const void* codeptr) {
  if (task == nullptr || task->ended || task->region_id == 0) return false;
  if (kind == ompt_sync_region_barrier_implicit_parallel) return true;
  return kind == ompt_sync_region_barrier_implicit && (codeptr == nullptr || codeptr == task->codeptr);
}

void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel_data,
                         ompt_data_t* task_data, const void* codeptr) {
  if (const lumen_runtime* runtime = recording_runtime()) {
    if (endpoint == ompt_scope_begin) {
      OpenTask* task = t_state.tasks.top();
      const bool implied = ends_task(kind, task, codeptr);
      if (implied) {
        end_task(runtime, *task);
        task->ended = true;
      }
      // An implied wait is pushed only to pair its end: no time or stack.
      if (OpenWait* wait = t_state.waits.push())
        *wait = implied ? OpenWait{0, LUMEN_NO_STACK, 0, 0, true}
                        : OpenWait{runtime->time->now_ns(), callback_stack(runtime), 0,
                                   static_cast<uint16_t>(sync_wait_kind(kind)), false};
    } else {
      OpenWait wait;
      if (t_state.waits.pop(&wait) && !wait.implied) {
        ErrnoKept errno_kept;
        TraceGuard guard(runtime);
        if (guard)
          write_wait(guard, OmpWait{current_region(), wait.begin_ns, runtime->time->now_ns(), wait.stack, 0,
                                    runtime->threads->thread_id(), wait.kind, 0});
      }
    }
  }
  chain<ompt_callback_sync_region_t>(ompt_callback_sync_region_wait, kind, endpoint, parallel_data, task_data,
                                     codeptr);
}

bool mutex_wait_kind(ompt_mutex_t kind, WaitKind* out) {
  switch (kind) {
    case ompt_mutex_lock:
    case ompt_mutex_nest_lock: *out = WaitKind::kLock; return true;
    case ompt_mutex_critical: *out = WaitKind::kCritical; return true;
    case ompt_mutex_atomic: *out = WaitKind::kAtomic; return true;
    case ompt_mutex_ordered: *out = WaitKind::kOrdered; return true;
    default: return false;  // a test_lock does not wait
  }
}

void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int implementation, ompt_wait_id_t wait_id,
                      const void* codeptr) {
  WaitKind wait_kind;
  const lumen_runtime* runtime = recording_runtime();
  t_state.mutex_open = runtime != nullptr && mutex_wait_kind(kind, &wait_kind);
  if (t_state.mutex_open)
    t_state.mutex =
        OpenWait{runtime->time->now_ns(), callback_stack(runtime), wait_id, static_cast<uint16_t>(wait_kind), false};
  chain<ompt_callback_mutex_acquire_t>(ompt_callback_mutex_acquire, kind, hint, implementation, wait_id, codeptr);
}

void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void* codeptr) {
  const lumen_runtime* runtime = recording_runtime();
  if (t_state.mutex_open && runtime != nullptr && t_state.mutex.object == wait_id) {
    t_state.mutex_open = false;
    ErrnoKept errno_kept;
    TraceGuard guard(runtime);
    if (guard)
      write_wait(guard, OmpWait{current_region(), t_state.mutex.begin_ns, runtime->time->now_ns(), t_state.mutex.stack,
                                wait_id, runtime->threads->thread_id(), t_state.mutex.kind, 0});
  }
  chain<ompt_callback_mutex_t>(ompt_callback_mutex_acquired, kind, wait_id, codeptr);
}

}  // namespace

void observe_clock_samples(const lumen_runtime* runtime) {
  if (runtime == nullptr || g_get_state.load(std::memory_order_acquire) == nullptr || g_observing.exchange(true))
    return;
  if (runtime->signals->observe_signal(SIGPROF, observe_clock_signal) != 0)
    runtime->recording->log_note(
        "OpenMP: no slot left to observe clock samples; samples are classified by the trace alone");
}

bool register_ompt_callbacks(ompt_function_lookup_t lookup, ompt_set_callback_t set_callback) {
  g_get_state.store(reinterpret_cast<ompt_get_state_t>(lookup("ompt_get_state")), std::memory_order_release);
  g_body_caller = reinterpret_cast<uint64_t>(dlsym(RTLD_DEFAULT, "__kmp_invoke_microtask"));
  resolve_ompt_task_functions();
  const struct {
    ompt_callbacks_t event;
    ompt_callback_t callback;
  } callbacks[] = {
      {ompt_callback_parallel_begin, reinterpret_cast<ompt_callback_t>(on_parallel_begin)},
      {ompt_callback_parallel_end, reinterpret_cast<ompt_callback_t>(on_parallel_end)},
      {ompt_callback_implicit_task, reinterpret_cast<ompt_callback_t>(on_implicit_task)},
      {ompt_callback_sync_region_wait, reinterpret_cast<ompt_callback_t>(on_sync_region_wait)},
      {ompt_callback_mutex_acquire, reinterpret_cast<ompt_callback_t>(on_mutex_acquire)},
      {ompt_callback_mutex_acquired, reinterpret_cast<ompt_callback_t>(on_mutex_acquired)},
      {ompt_callback_task_create, reinterpret_cast<ompt_callback_t>(on_task_create)},
      {ompt_callback_task_schedule, reinterpret_cast<ompt_callback_t>(on_task_schedule)},
  };
  bool regions = false;
  for (const auto& [event, callback] : callbacks) {
    const int result = set_callback(event, callback);
    if (result == ompt_set_error || result == ompt_set_never) continue;
    mark_plugin_event(event);
    if (event == ompt_callback_parallel_begin) regions = true;
  }
  if (regions) set_ompt_active();
  // The tool may start before the plugin or after it (start() calls this
  // too): whichever comes second has both the runtime and ompt_get_state.
  if (regions) observe_clock_samples(recording_runtime());
  return regions;
}

}  // namespace lumen::omp
