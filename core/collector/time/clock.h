// The experiment's time base.
#pragma once

#include <time.h>

#include <cstdint>

namespace lumen::collector {

// [signal-safe] CLOCK_MONOTONIC in nanoseconds (a vDSO call).
inline uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

}  // namespace lumen::collector
