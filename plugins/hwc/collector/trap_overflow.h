// Overflows of the counters the kernel counts in its own code as it switches
// a thread out or moves it (context-switches, cpu-migrations). The overflow
// happens as the thread leaves the CPU: a signal sent then (F_SETSIG) wakes
// it from the sleep or poll it is entering, which returns early (EINTR) —
// and a program that sleeps again is switched out and woken again. perf's
// sigtrap instead sends SIGTRAP (si_code TRAP_PERF, with the counter's
// sig_data) to the thread when it next returns to user space: once its
// sleep is over, in the program's code that slept. Linux 6.1 delivers such a
// signal for a switch (earlier kernels lose it) and leaves it pending while
// SIGTRAP is blocked (earlier ones could reset its handler and end the
// program).
#pragma once

#include <signal.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace lumen::hwc {

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif

// sig_data of counter i: this cookie | i, telling ours from a program's own
// sigtrap events.
inline constexpr uint64_t kTrapCookie = 0x4c554d454e000000ull;  // "LUMEN"
inline constexpr uint64_t kTrapIndexMask = 0xff;

// Why counters counted in the kernel cannot be recorded here, or "".
std::string trap_overflow_obstacle();

// [signal-safe] The sig_data of a TRAP_PERF signal: the kernel's
// _sigfault._perf._data, right after si_addr where no si_trapno precedes
// the union (trap_overflow_obstacle() refuses the others).
inline uint64_t trap_perf_data(const siginfo_t* info) {
  uint64_t data;
  std::memcpy(&data, reinterpret_cast<const char*>(&info->si_addr) + sizeof(void*), sizeof data);
  return data;
}

}  // namespace lumen::hwc
