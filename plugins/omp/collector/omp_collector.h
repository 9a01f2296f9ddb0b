// What the OpenMP plugin's interposers share with its lifecycle: the
// runtime's services once start() has run, and the records they write.
#pragma once

#include <lumen/collector_support.h>

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
// before start() and after stop(): interposers then only forward.
const lumen_runtime* recording_runtime();

// [signal-safe] Whether the OpenMP runtime reports to the plugin's OMPT
// tool (ompt_tool.cpp): libgomp's interposers then only forward (libomp
// exports GOMP_* and omp_set_lock too, and would be traced twice).
bool ompt_active();
void set_ompt_active();

// [signal-safe] A process-unique region id, from 1; the same for explicit
// tasks (a sequence of their own).
uint64_t next_region_id();
uint64_t next_task_id();

// [signal-safe] The stack of the program's call into the plugin's wrapper
// that calls this (LUMEN_NO_STACK inside the collector already).
uint64_t program_stack(const lumen_runtime* runtime);

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
