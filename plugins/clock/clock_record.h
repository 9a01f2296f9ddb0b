// The clock plugin's record, shared by its two halves.
#pragma once

#include <cstdint>

namespace lumen::clock {

inline constexpr const char* kDataFile = "profile";
inline constexpr uint16_t kSampleRecord = 1;

// One CPU-time sample of one thread. `cpu_ns` is the CPU time the sample
// stands for: the timer interval times (1 + the timer's overruns), because a
// CPU-time timer only expires on the scheduler tick and folds the expirations
// it missed into its overrun count.
struct ClockSample {
  uint64_t time_ns;
  uint64_t stack_id;
  uint64_t cpu_ns;
  uint32_t thread_id;
  int32_t cpu;
};
static_assert(sizeof(ClockSample) == 32, "record layout");

}  // namespace lumen::clock
