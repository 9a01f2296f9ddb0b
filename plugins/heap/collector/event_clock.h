// The heap events' stamps: an ordered clock, cheaper than a clock reading
// per event.
//
// Reading CLOCK_MONOTONIC costs about 95 ns on a virtual machine whose
// clock source is kvm-clock (the TSC is read through the hypervisor), and
// each malloc/free pair needs two stamps. Pairing needs only what the
// stamps order: an allocation stamped after the real call returned, a free
// before the real call ran, and an event that happened after another
// stamped later, whatever threads made them. So a stamp is
//   max(a time reading, the previous stamp of the process + 1)
// taken with one compare-and-swap on a process-wide word. The swaps on
// that word are one total order that agrees with what happened before
// what, so stamps strictly increase across all threads (no two events of a
// process share a stamp) and a free is always stamped earlier than the
// allocation that got its address back, on any thread.
//
// The time reading is CLOCK_MONOTONIC_COARSE (the last scheduler tick, a
// few ns) except on a thread's first event after a tick and every
// kFineEvery-th event of a thread, which read CLOCK_MONOTONIC: a stamp is
// never later than the moment it was taken (each swap takes more than a
// nanosecond, so adding 1 per event cannot run ahead of time) and lags it
// by at most the time since the last fine reading of any thread (a few
// microseconds while a thread allocates continuously). Stamps are never
// earlier than the latest load-object map change the runtime recorded, so
// a stack resolves against the objects loaded when its event happened.
#pragma once

#include <lumen/collector_plugin.h>

#include <cstdint>

namespace lumen::heap {

// Not signal-safe: at start (and in a forked child). Stamps start after
// `start_ns` (the data file's start record).
void event_clock_start(const lumen_runtime* runtime, uint64_t start_ns) noexcept;

// [signal-safe, lock-free] The next stamp.
uint64_t event_stamp() noexcept;

}  // namespace lumen::heap
