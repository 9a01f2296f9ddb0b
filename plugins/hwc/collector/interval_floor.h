// The smallest honest interval of a counter, checked by collect before the
// target starts. A counter whose count is time (task-clock, cpu-clock) is
// timed by the kernel no finer than every 10 us, and each overflow costs the
// thread a signal and an unwind of several microseconds of its own time:
// below the floor the profile would measure the collector, and an overflow
// storm could keep the thread from ever running its own code.
#pragma once

#include <string>

#include "counter_encoding.h"

namespace lumen::hwc {

// Nanoseconds of a time-counting counter between two overflows, at least.
inline constexpr uint64_t kMinimumTimeIntervalNs = 50'000;

// Why `counter`'s interval is too small, naming the floor, or "".
std::string interval_obstacle(const EncodedCounter& counter);

}  // namespace lumen::hwc
