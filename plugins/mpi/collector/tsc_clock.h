// The time stamps of traced MPI calls: CLOCK_MONOTONIC nanoseconds (the
// experiment's time base) read from the processor's time-stamp counter.
// Two clock_gettime calls a traced call cost 30-40 ns each through a
// virtual machine's kvm-clock vDSO, rdtsc about a third of that.
//
// Each thread keeps an anchor, a (TSC, CLOCK_MONOTONIC) pair it read
// together, and extends it by the TSC ticks since, at the process's rate of
// nanoseconds a tick: measured between the first anchor the clock took and
// every later one, so the longer the process runs, the finer it is. A
// thread takes a new anchor on its first stamp and whenever its anchor is
// older than kReanchorNs (or than 1/64 of the process's time since its
// first anchor, while that is under 0.64 s), which bounds how far a stamp
// can stray from CLOCK_MONOTONIC (the rate's error over that time); the
// rate is known 1 ms after the first anchor, and until then stamps are
// clock_gettime itself. A thread's stamps never go back: a new anchor
// behind its last stamp leaves that one standing.
//
// Only a TSC the processor declares invariant (CPUID 8000_0007H EDX bit 8:
// the same rate in every power state, on every core) is used; without it,
// and on other architectures, every stamp is clock_gettime.
// [Not signal-safe on one thread's own anchor: MPI is not either.]
#pragma once

#include <cstdint>

namespace lumen::mpi::tsc_clock {

inline constexpr uint64_t kReanchorNs = 10'000'000;

// Checks the processor and takes the first anchor: before any stamp.
void init();
// CLOCK_MONOTONIC in nanoseconds.
uint64_t now_ns();
// CLOCK_MONOTONIC read by clock_gettime.
uint64_t monotonic_ns();

// What the clock did so far: for the experiment log.
struct Report {
  bool tsc;                  // the TSC is in use
  uint64_t anchors;          // anchors taken after the first
  uint64_t largest_step_ns;  // largest |extended stamp - CLOCK_MONOTONIC| seen at a new anchor
  uint64_t ticks_per_ms;     // the rate, in TSC ticks a millisecond (0: not yet known)
};
Report report();

}  // namespace lumen::mpi::tsc_clock
