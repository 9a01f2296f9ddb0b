// GCC's libgomp has no tool interface (OMPT), so its entry points are
// interposed. A parallel construct reaches libgomp as a call passing the
// compiler-generated body function (`f._omp_fn.0`); the wrapper passes
// run_implicit_task instead, which every thread of the team runs, so each
// thread's implicit task is timed where it begins and ends. The calls that
// wait (barriers, critical sections, locks, ordered, atomic, taskwait) are
// timed from entry to return.
//
// Definitions are unversioned: they satisfy a program's versioned
// references (GOMP_4.0, OMP_3.0, ...), and each forwards to the version of
// libgomp that GCC 12 binds. Nothing is held across the body or the wait:
// the re-entry guard is taken only to record, so other plugins still trace
// what the body does.
#include <lumen/collector_support.h>

#include <atomic>

#include "omp_collector.h"

namespace lumen::omp {

namespace {

using Body = void (*)(void*);

RealFunction<int()> real_omp_get_thread_num{"omp_get_thread_num", "OMP_1.0"};

// What a region's implicit tasks need; it lives on the encountering
// thread's stack for the whole call (libgomp returns only after the team
// has finished).
struct RegionContext {
  // GOMP_parallel_reductions reads the first word of its data as the
  // program's task-reduction descriptor (and registers and writes through
  // it): the context starts with that word, copied.
  void* reduction_descriptor;
  Body body;
  void* data;
  uint64_t region_id;
  std::atomic<uint32_t> team_size;
  // The encountering thread's own task (thread 0 of the team: libgomp runs
  // the body on it after starting the others), written with the region in
  // one record. end_ns 0: it has not ended inside the call.
  uint64_t task_begin_ns;
  uint64_t task_end_ns;
};

void record_task(uint64_t region_id, uint64_t begin_ns, uint32_t thread_num) {
  const lumen_runtime* runtime = recording_runtime();
  if (runtime == nullptr) return;
  ErrnoKept errno_kept;
  TraceGuard guard(runtime);
  if (!guard) return;
  write_task(guard, OmpTask{region_id, begin_ns, runtime->time->now_ns(), runtime->threads->thread_id(), thread_num});
}

void run_implicit_task(void* argument) {
  auto* region = static_cast<RegionContext*>(argument);
  const lumen_runtime* runtime = recording_runtime();
  if (runtime == nullptr) return region->body(region->data);
  const uint64_t outer = current_region();
  set_current_region(region->region_id);
  region->team_size.fetch_add(1, std::memory_order_relaxed);
  const uint32_t thread_num = static_cast<uint32_t>(real_omp_get_thread_num.get()());
  const uint64_t begin = runtime->time->now_ns();
  region->body(region->data);
  if (thread_num == 0) {
    region->task_begin_ns = begin;
    region->task_end_ns = runtime->time->now_ns();
  } else {
    record_task(region->region_id, begin, thread_num);
  }
  set_current_region(outer);
}

// The region's record, with its encountering thread's task in it when the
// task's times fit the record's offsets (else both on their own).
void record_region(const lumen_runtime* runtime, const RegionContext& context, const OmpRegion& region) {
  ErrnoKept errno_kept;
  TraceGuard guard(runtime);
  if (guard) write_region_with_task(guard, region, context.task_begin_ns, context.task_end_ns);
}

// Runs `start_region(body, data)` (the real call, with the body to give
// libgomp) as a traced region when recording, else unchanged.
template <typename Result, typename StartRegion>
Result traced_region(Body body, void* data, unsigned num_threads, StartRegion start_region,
                     void* reduction_descriptor = nullptr) {
  const lumen_runtime* runtime = interposing_runtime();
  if (runtime == nullptr) return start_region(body, data);
  RegionContext context{reduction_descriptor, body, data, next_region_id(), {0}, 0, 0};
  const uint64_t stack = program_stack(runtime, site_cache(Site::kGompRegion));
  const uint64_t begin = runtime->time->now_ns();
  auto record = [&] {
    record_region(runtime, context,
                  OmpRegion{context.region_id, current_region(), stack, reinterpret_cast<uint64_t>(body), begin,
                            runtime->time->now_ns(), runtime->threads->thread_id(),
                            context.team_size.load(std::memory_order_relaxed), num_threads, 0});
  };
  if constexpr (std::is_void_v<Result>) {
    start_region(run_implicit_task, &context);
    record();
  } else {
    const Result result = start_region(run_implicit_task, &context);
    record();
    return result;
  }
}

// Runs `call()` (a call that may wait) and records the wait of `kind`.
template <typename Call>
auto traced_wait(WaitKind kind, const void* object, Call call) {
  const lumen_runtime* runtime = interposing_runtime();
  if (runtime == nullptr) return call();
  const uint64_t stack = program_stack(runtime);
  const uint64_t begin = runtime->time->now_ns();
  auto record = [&] {
    ErrnoKept errno_kept;
    TraceGuard guard(runtime);
    if (!guard) return;
    const uint64_t end = runtime->time->now_ns();
    write_wait(guard, OmpWait{current_region(), begin, end, stack,
                              reinterpret_cast<uint64_t>(object), runtime->threads->thread_id(),
                              static_cast<uint16_t>(kind), 0});
  };
  if constexpr (std::is_void_v<decltype(call())>) {
    call();
    record();
  } else {
    auto result = call();
    record();
    return result;
  }
}

// The real functions, under the versions GCC 12 binds.
RealFunction<void(Body, void*, unsigned, unsigned)> real_parallel{"GOMP_parallel", "GOMP_4.0"};
RealFunction<unsigned(Body, void*, unsigned, unsigned)> real_parallel_reductions{"GOMP_parallel_reductions",
                                                                                 "GOMP_5.0"};
RealFunction<void(Body, void*, unsigned, unsigned, unsigned)> real_parallel_sections{"GOMP_parallel_sections",
                                                                                     "GOMP_4.0"};
using LoopStart = void(Body, void*, unsigned, long, long, long, long, unsigned);
using RuntimeLoopStart = void(Body, void*, unsigned, long, long, long, unsigned);
RealFunction<LoopStart> real_loop_static{"GOMP_parallel_loop_static", "GOMP_4.0"};
RealFunction<LoopStart> real_loop_dynamic{"GOMP_parallel_loop_dynamic", "GOMP_4.0"};
RealFunction<LoopStart> real_loop_guided{"GOMP_parallel_loop_guided", "GOMP_4.0"};
RealFunction<LoopStart> real_loop_nonmonotonic_dynamic{"GOMP_parallel_loop_nonmonotonic_dynamic", "GOMP_4.5"};
RealFunction<LoopStart> real_loop_nonmonotonic_guided{"GOMP_parallel_loop_nonmonotonic_guided", "GOMP_4.5"};
RealFunction<RuntimeLoopStart> real_loop_runtime{"GOMP_parallel_loop_runtime", "GOMP_4.0"};
RealFunction<RuntimeLoopStart> real_loop_maybe_nonmonotonic_runtime{
    "GOMP_parallel_loop_maybe_nonmonotonic_runtime", "GOMP_5.0"};
RealFunction<RuntimeLoopStart> real_loop_nonmonotonic_runtime{"GOMP_parallel_loop_nonmonotonic_runtime",
                                                               "GOMP_5.0"};

RealFunction<void()> real_barrier{"GOMP_barrier", "GOMP_1.0"};
RealFunction<void()> real_loop_end{"GOMP_loop_end", "GOMP_1.0"};
RealFunction<void()> real_sections_end{"GOMP_sections_end", "GOMP_1.0"};
RealFunction<void()> real_critical_start{"GOMP_critical_start", "GOMP_1.0"};
RealFunction<void(void**)> real_critical_name_start{"GOMP_critical_name_start", "GOMP_1.0"};
RealFunction<void()> real_ordered_start{"GOMP_ordered_start", "GOMP_1.0"};
RealFunction<void()> real_atomic_start{"GOMP_atomic_start", "GOMP_1.0"};
RealFunction<void()> real_taskwait{"GOMP_taskwait", "GOMP_2.0"};
RealFunction<void()> real_taskgroup_end{"GOMP_taskgroup_end", "GOMP_4.0"};
RealFunction<void(void*)> real_set_lock{"omp_set_lock", "OMP_3.0"};
RealFunction<void(void*)> real_set_nest_lock{"omp_set_nest_lock", "OMP_3.0"};
RealFunction<void(void**)> real_set_lock_fortran{"omp_set_lock_", "OMP_3.0"};
RealFunction<void(void**)> real_set_nest_lock_fortran{"omp_set_nest_lock_", "OMP_3.0"};

}  // namespace

// A function of its own, never inlined: whether the runtime's entry point
// reaches its unwinder by a tail call or not, the frames it skips are then
// this one and the wrapper, both the plugin's, never the program's.
__attribute__((noinline)) uint64_t program_stack(const lumen_runtime* runtime, lumen_capture_cache* site) {
  ErrnoKept errno_kept;
  TraceGuard guard(runtime);
  if (!guard) return LUMEN_NO_STACK;
  return site != nullptr ? runtime->stacks->capture_stack_reusing(site, 0) : runtime->stacks->capture_stack(nullptr, 0);
}

void resolve_runtime_functions() {
  real_omp_get_thread_num.get();
  real_parallel.get();
  real_parallel_reductions.get();
  real_parallel_sections.get();
  for (auto* loop : {&real_loop_static, &real_loop_dynamic, &real_loop_guided, &real_loop_nonmonotonic_dynamic,
                     &real_loop_nonmonotonic_guided})
    loop->get();
  for (auto* loop : {&real_loop_runtime, &real_loop_maybe_nonmonotonic_runtime, &real_loop_nonmonotonic_runtime})
    loop->get();
  for (auto* wait : {&real_barrier, &real_loop_end, &real_sections_end, &real_critical_start, &real_ordered_start,
                     &real_atomic_start, &real_taskwait, &real_taskgroup_end})
    wait->get();
  real_critical_name_start.get();
  real_set_lock.get();
  real_set_nest_lock.get();
  real_set_lock_fortran.get();
  real_set_nest_lock_fortran.get();
  resolve_task_functions();
  resolve_taskloop_functions();
}

}  // namespace lumen::omp

using lumen::omp::Body;
using lumen::omp::traced_region;
using lumen::omp::traced_wait;
using lumen::omp::WaitKind;
namespace real = lumen::omp;

LUMEN_EXPORT void GOMP_parallel(Body body, void* data, unsigned num_threads, unsigned flags) {
  traced_region<void>(body, data, num_threads,
                      [&](Body b, void* d) { real::real_parallel.get()(b, d, num_threads, flags); });
}

LUMEN_EXPORT unsigned GOMP_parallel_reductions(Body body, void* data, unsigned num_threads, unsigned flags) {
  return traced_region<unsigned>(
      body, data, num_threads,
      [&](Body b, void* d) { return real::real_parallel_reductions.get()(b, d, num_threads, flags); },
      data != nullptr ? *static_cast<void**>(data) : nullptr);
}

LUMEN_EXPORT void GOMP_parallel_sections(Body body, void* data, unsigned num_threads, unsigned count,
                                         unsigned flags) {
  traced_region<void>(body, data, num_threads,
                      [&](Body b, void* d) { real::real_parallel_sections.get()(b, d, num_threads, count, flags); });
}

#define LUMEN_OMP_LOOP(symbol, real_function)                                                               \
  LUMEN_EXPORT void symbol(Body body, void* data, unsigned num_threads, long start, long end, long incr,   \
                           long chunk, unsigned flags) {                                                    \
    traced_region<void>(body, data, num_threads, [&](Body b, void* d) {                                     \
      real::real_function.get()(b, d, num_threads, start, end, incr, chunk, flags);                         \
    });                                                                                                     \
  }
LUMEN_OMP_LOOP(GOMP_parallel_loop_static, real_loop_static)
LUMEN_OMP_LOOP(GOMP_parallel_loop_dynamic, real_loop_dynamic)
LUMEN_OMP_LOOP(GOMP_parallel_loop_guided, real_loop_guided)
LUMEN_OMP_LOOP(GOMP_parallel_loop_nonmonotonic_dynamic, real_loop_nonmonotonic_dynamic)
LUMEN_OMP_LOOP(GOMP_parallel_loop_nonmonotonic_guided, real_loop_nonmonotonic_guided)
#undef LUMEN_OMP_LOOP

#define LUMEN_OMP_RUNTIME_LOOP(symbol, real_function)                                                         \
  LUMEN_EXPORT void symbol(Body body, void* data, unsigned num_threads, long start, long end, long incr,     \
                           unsigned flags) {                                                                  \
    traced_region<void>(body, data, num_threads, [&](Body b, void* d) {                                       \
      real::real_function.get()(b, d, num_threads, start, end, incr, flags);                                  \
    });                                                                                                       \
  }
LUMEN_OMP_RUNTIME_LOOP(GOMP_parallel_loop_runtime, real_loop_runtime)
LUMEN_OMP_RUNTIME_LOOP(GOMP_parallel_loop_maybe_nonmonotonic_runtime, real_loop_maybe_nonmonotonic_runtime)
LUMEN_OMP_RUNTIME_LOOP(GOMP_parallel_loop_nonmonotonic_runtime, real_loop_nonmonotonic_runtime)
#undef LUMEN_OMP_RUNTIME_LOOP

LUMEN_EXPORT void GOMP_barrier() { traced_wait(WaitKind::kExplicitBarrier, nullptr, [] { real::real_barrier.get()(); }); }
LUMEN_EXPORT void GOMP_loop_end() { traced_wait(WaitKind::kImplicitBarrier, nullptr, [] { real::real_loop_end.get()(); }); }
LUMEN_EXPORT void GOMP_sections_end() {
  traced_wait(WaitKind::kImplicitBarrier, nullptr, [] { real::real_sections_end.get()(); });
}
LUMEN_EXPORT void GOMP_critical_start() {
  traced_wait(WaitKind::kCritical, nullptr, [] { real::real_critical_start.get()(); });
}
LUMEN_EXPORT void GOMP_critical_name_start(void** name) {
  traced_wait(WaitKind::kCritical, name, [&] { real::real_critical_name_start.get()(name); });
}
LUMEN_EXPORT void GOMP_ordered_start() {
  traced_wait(WaitKind::kOrdered, nullptr, [] { real::real_ordered_start.get()(); });
}
LUMEN_EXPORT void GOMP_atomic_start() { traced_wait(WaitKind::kAtomic, nullptr, [] { real::real_atomic_start.get()(); }); }
LUMEN_EXPORT void GOMP_taskwait() { traced_wait(WaitKind::kTaskwait, nullptr, [] { real::real_taskwait.get()(); }); }
LUMEN_EXPORT void GOMP_taskgroup_end() {
  traced_wait(WaitKind::kTaskwait, nullptr, [] { real::real_taskgroup_end.get()(); });
}
LUMEN_EXPORT void omp_set_lock(void* lock) {
  traced_wait(WaitKind::kLock, lock, [&] { real::real_set_lock.get()(lock); });
}
LUMEN_EXPORT void omp_set_nest_lock(void* lock) {
  traced_wait(WaitKind::kLock, lock, [&] { real::real_set_nest_lock.get()(lock); });
}
// gfortran's omp_lock_kind is 4 bytes: the argument is the lock itself.
LUMEN_EXPORT void omp_set_lock_(void** lock) {
  traced_wait(WaitKind::kLock, lock, [&] { real::real_set_lock_fortran.get()(lock); });
}
LUMEN_EXPORT void omp_set_nest_lock_(void** lock) {
  traced_wait(WaitKind::kLock, *lock, [&] { real::real_set_nest_lock_fortran.get()(lock); });
}
