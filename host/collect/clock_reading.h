// A clock's reading in nanoseconds, as the experiment's header records
// times (CLOCK_REALTIME for wall times, CLOCK_MONOTONIC for the origin).
#pragma once

#include <time.h>

namespace lumen::collect {

inline long long clock_ns(clockid_t clock) {
  timespec ts;
  clock_gettime(clock, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

}  // namespace lumen::collect
