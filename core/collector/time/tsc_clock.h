// The runtime's time stamps (lumen_time_service.now_ns): CLOCK_MONOTONIC
// nanoseconds, the experiment's time base, read from the processor's
// time-stamp counter. Through a virtual machine's kvm-clock vDSO one
// clock_gettime costs 25-50 ns, a stamp from the TSC about 11 ns, and a
// traced OpenMP region takes six stamps.
//
// One curve for the whole process, drawn as lines: each starts at an
// anchor's TSC and runs at a slope in nanoseconds a tick. The first stamp
// a period or more past the line's start (kTscPeriodNs, shorter while the
// process is young: 1/64 of its age) draws the next one
// from a new anchor, a (TSC, CLOCK_MONOTONIC) pair read together: from
// CLOCK_MONOTONIC itself where the old line had fallen behind it, or, where
// the old line was ahead, from the old line's value there, at a slope that
// meets CLOCK_MONOTONIC one period later. So the curve never goes back, is
// the same on every thread, and strays from CLOCK_MONOTONIC by no more than
// the rate's error over a period. The rate (nanoseconds a tick) is measured
// from the first anchor to the latest, finer the longer the process runs.
//
// Two slots hold lines; a generation counter says which is published and
// whether the other is being drawn (odd). A stamp reads the published slot
// and checks the generation after; a drawing writes only the other slot and
// is taken by one thread at a time (a stamp that finds it taken extends the
// published line), so a signal handler over a stamp or over a drawing never
// waits.
//
// Only a TSC the processor declares invariant (CPUID 8000_0007H EDX bit 8:
// one rate in every power state, on every core) is used; without one, on
// other architectures, and until the rate is first measured (kTscFirstRateNs
// after tsc_clock_init), a stamp is clock_gettime.
#pragma once

#include <cstdint>

namespace lumen::collector {

inline constexpr uint64_t kTscPeriodNs = 2'000'000;
inline constexpr uint64_t kTscFirstRateNs = 1'000'000;

// Not signal-safe: once, before any other thread stamps (earlier stamps are
// clock_gettime). A second call keeps the first anchor.
void tsc_clock_init();

// [signal-safe] CLOCK_MONOTONIC nanoseconds, from the TSC where it can be.
uint64_t tsc_now_ns();

// In a forked child, on its only thread: a line that another thread of the
// parent was drawing when it forked is abandoned, so stamps draw again.
void tsc_clock_after_fork();

// What the clock did so far: for the experiment log.
struct TscClockReport {
  bool tsc;                  // the TSC is in use
  uint64_t lines;            // lines drawn after the first
  uint64_t largest_step_ns;  // largest |curve - CLOCK_MONOTONIC| seen at an anchor
  uint64_t ticks_per_ms;     // the rate, in TSC ticks a millisecond (0: not yet known)
};
TscClockReport tsc_clock_report();

}  // namespace lumen::collector
