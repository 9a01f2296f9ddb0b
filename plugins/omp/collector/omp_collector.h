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

// [signal-safe] The runtime's services while the plugin records; NULL
// before start() and after stop(): interposers then only forward.
const lumen_runtime* recording_runtime();

// [signal-safe] A process-unique region id, from 1.
uint64_t next_region_id();

// The innermost parallel region the calling thread works in (0: none).
uint64_t current_region();
void set_current_region(uint64_t region_id);

// Appends one record to "omptrace" on the calling thread; the guard proves
// the caller holds the runtime's re-entry guard.
void write_region(const TraceGuard& guard, const OmpRegion& region);
void write_task(const TraceGuard& guard, const OmpTask& task);
void write_wait(const TraceGuard& guard, const OmpWait& wait);

}  // namespace lumen::omp
