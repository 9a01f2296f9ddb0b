// Sums of metric values. Values are signed 64-bit quantities (nanoseconds,
// counts, bytes) that plugins decode from records anyone may have written:
// a sum that does not fit is held at the nearest end of int64_t, never
// wrapped into a negative or a small figure (the SDK's
// lumen_saturating_add, which plugins' own views use too).
#pragma once

#include <lumen/analysis_plugin.h>

#include <cstddef>
#include <cstdint>
#include <limits>

namespace lumen::analysis {

inline int64_t saturating_difference(int64_t total, int64_t value) {
  int64_t difference;
  if (__builtin_sub_overflow(total, value, &difference))
    return value < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return difference;
}

inline void add_saturating(int64_t& total, int64_t value) { total = lumen_saturating_add(total, value); }

// into[m] += values[m] for m < count, each held.
inline void add_values(int64_t* into, const int64_t* values, size_t count) {
  for (size_t m = 0; m < count; ++m) into[m] = lumen_saturating_add(into[m], values[m]);
}

}  // namespace lumen::analysis
