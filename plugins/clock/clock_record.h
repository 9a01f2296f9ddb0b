// The clock plugin's records, shared by its two halves.
#pragma once

#include <cstdint>

namespace lumen::clock {

inline constexpr const char* kDataFile = "profile";
// Experiments recorded before CPU time was split into user and system hold
// only kSampleRecord; current collectors write kSplitSampleRecord.
inline constexpr uint16_t kSampleRecord = 1;
inline constexpr uint16_t kSplitSampleRecord = 2;

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

// The same sample with the CPU time it stands for split into user and
// system time: what the kernel accounted to the thread (its rusage) since
// its previous sample; the timer's interval x (1 + overruns), split as the
// previous sample was, when that accounting had not moved.
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
