// What the OpenMP plugin's interposers share with its lifecycle: the
// runtime's services once start() has run, and the records they write.
#pragma once

#include <lumen/collector_support.h>

#include <atomic>
#include <cstdint>

#include "../omp_record.h"

namespace lumen::omp {

// Not signal-safe. Looks up libgomp's real entry points, at start: a
// lookup takes the dynamic linker's lock, which a worker thread entering
// its first region must never wait for.
void resolve_runtime_functions();
void resolve_task_functions();      // gomp_tasks.cpp's
void resolve_taskloop_functions();  // gomp_taskloop.cpp's

// [signal-safe] The runtime's services while the plugin records; NULL
// before start() and after stop(): interposers then only forward. Inline:
// every callback and interposer reads it.
extern std::atomic<const lumen_runtime*> g_recording_runtime;
inline const lumen_runtime* recording_runtime() { return g_recording_runtime.load(std::memory_order_acquire); }

// [signal-safe] Whether the OpenMP runtime reports to the plugin's OMPT
// tool (ompt_tool.cpp): libgomp's interposers then only forward (libomp
// exports GOMP_* and omp_set_lock too, and would be traced twice).
bool ompt_active();
void set_ompt_active();

// [signal-safe] A process-unique region id, from 1; the same for explicit
// tasks (a sequence of their own).
uint64_t next_region_id();
uint64_t next_task_id();

// Not signal-safe with a `site`. The stack of the program's call into the
// plugin's wrapper that calls this (LUMEN_NO_STACK inside the collector
// already); with `site` (the calling thread's cache for one kind of wrapper)
// reused while everything its last unwinding read is unchanged.
uint64_t program_stack(const lumen_runtime* runtime, lumen_capture_cache* site = nullptr);

// The kinds of call site whose stacks are reused (capture_stack_reusing):
// a region's call site, under OMPT (parallel_begin) and libgomp (the
// GOMP_parallel* wrappers), and an explicit task's submission (libomp's
// __kmpc_omp_task*, libgomp's GOMP_task), a loop's calls from one place
// most often. Waits are captured plainly: the sync-region waits of the
// region benchmark were not reused often enough to pay for the unwindings
// that fill a cache (docs/performance.md).
enum class Site { kOmptRegion, kGompRegion, kOmptTask, kGompTask, kCount };

// Not signal-safe. The calling thread's cache for `site`, in a block mapped
// on its first use (8 KiB: too much for initial-exec TLS in an object
// that may be dlopened); nullptr once the thread ended or when no memory
// could be mapped: the caller then captures plainly.
lumen_capture_cache* site_cache(Site site);

// Unmaps the calling thread's block (the plugin's thread_end).
void release_site_caches();

// [signal-safe] The runtime's services while libgomp's interposers record:
// not while an OMPT tool of the plugin's hears the runtime (libomp's GOMP_*
// compatibility entry points then report to it).
const lumen_runtime* interposing_runtime();

// The innermost parallel region the calling thread works in (0: none).
uint64_t current_region();
void set_current_region(uint64_t region_id);

// Appends one record to "omptrace" on the calling thread; the guard proves
// the caller holds the runtime's re-entry guard.
void write_region(const TraceGuard& guard, const OmpRegion& region);
void write_task(const TraceGuard& guard, const OmpTask& task);
void write_region_task(const TraceGuard& guard, const OmpRegionTask& region_task);
// A region and its encountering thread's task (thread 0), ended at
// `task_end_ns` (0: not inside the region, the region alone): one record
// when the task's times fit its offsets, else each on its own.
void write_region_with_task(const TraceGuard& guard, const OmpRegion& region, uint64_t task_begin_ns,
                            uint64_t task_end_ns);
void write_wait(const TraceGuard& guard, const OmpWait& wait);
void write_explicit_task(const TraceGuard& guard, const OmpExplicitTask& task);

// [signal-safe] Appends a state record (OmpState), from a signal handler
// on the thread it describes; the runtime's writer drops (and counts) what
// it cannot take.
void write_state(const OmpState& state);

// Not signal-safe. Has each delivery of clock profiling's signal record the
// thread's OMPT state (ompt_callbacks.cpp), once both the plugin's runtime
// services and the OMPT runtime's ompt_get_state are known; a no-op before,
// and where the plugin was built without OMPT.
void observe_clock_samples(const lumen_runtime* runtime);

}  // namespace lumen::omp
