// The clock plugin's records, shared by its two halves.
#pragma once

#include <cstdint>

namespace lumen::clock {

inline constexpr const char* kDataFile = "profile";
inline constexpr uint16_t kSplitSampleRecord = 2;  // ClockSplitSample

// One CPU-time sample of one thread, with the CPU time it stands for split
// into user and system time: what the kernel accounted to the thread (its
// rusage) since its previous sample; when that accounting had not moved,
// the timer's interval x (1 + its overruns: a CPU-time timer only expires
// on the scheduler tick and folds the expirations it missed into its
// overrun count), split as the previous sample was.
struct ClockSplitSample {
  uint64_t time_ns;
  uint64_t stack_id;
  uint64_t user_ns;
  uint64_t system_ns;
  uint32_t thread_id;
  int32_t cpu;
};
static_assert(sizeof(ClockSplitSample) == 40, "record layout");

}  // namespace lumen::clock
