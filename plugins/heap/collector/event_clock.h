// The clock of the heap events' time marks (../heap_paired.h): cheaper than
// a clock reading per event.
//
// Reading CLOCK_MONOTONIC costs about 95 ns on a virtual machine whose
// clock source is kvm-clock (the TSC is read through the hypervisor), while
// CLOCK_MONOTONIC_COARSE (the last scheduler tick) costs a few ns. A thread
// reads the coarse clock at each event and the fine one on its first event
// after a tick and every kFineEvery-th event: its reading is never later
// than the moment it was taken and lags it by at most the time since its
// last fine reading (a few microseconds while the thread allocates
// continuously, a tick otherwise). No process-wide word is written: the
// pairing needs no global order of events (the collector pairs them).
#pragma once

#include <lumen/collector_plugin.h>

#include <cstdint>

namespace lumen::heap {

// Not signal-safe: at start (and in a forked child). Readings are never
// earlier than `start_ns` (the data file's start record).
void event_clock_start(const lumen_runtime* runtime, uint64_t start_ns) noexcept;

// [signal-safe] The calling thread's reading of the time now.
uint64_t clock_now() noexcept;

// [signal-safe] When the runtime last changed its load-object map (0: never
// or not known): a mark must be later for stacks to resolve in that map.
uint64_t map_change_ns() noexcept;

// [signal-safe] The calling thread's latest reading of the runtime's clock
// (0: none): another plugin's event on this thread (an OpenMP task's
// begin), which a later heap event's mark must not precede, or the event
// would fall outside the interval that event opened.
uint64_t latest_runtime_reading() noexcept;

}  // namespace lumen::heap
