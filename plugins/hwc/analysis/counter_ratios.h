// Ratios of two counters collected together: cycles per instruction and
// instructions per cycle, for any row (function, object, <Total>) whose
// cycle and instruction counts are known.
#pragma once

#include <cstdint>
#include <optional>

namespace lumen::hwc {

// Cycles per instruction; none when no instruction was counted.
inline std::optional<double> cycles_per_instruction(int64_t cycles, int64_t instructions) {
  if (instructions <= 0 || cycles < 0) return std::nullopt;
  return static_cast<double>(cycles) / static_cast<double>(instructions);
}

// Instructions per cycle; none when no cycle was counted.
inline std::optional<double> instructions_per_cycle(int64_t cycles, int64_t instructions) {
  if (cycles <= 0 || instructions < 0) return std::nullopt;
  return static_cast<double>(instructions) / static_cast<double>(cycles);
}

}  // namespace lumen::hwc
