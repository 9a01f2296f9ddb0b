// What hwc_counter_experiment writes: the cycle and instruction counts on
// each function's stack, as a machine with a PMU would have recorded them.
// The test divides these numbers itself; er_print's CPI and IPC must agree.
#pragma once

#include <cstdint>

namespace lumen::hwc::truth {

// Stacks (leaf first): ratio_alpha <- ratio_root; ratio_beta <- ratio_alpha
// <- ratio_root; ratio_gamma <- ratio_root. Each function's counts are written as several
// overflow records, so er_print has to sum them before it divides.
struct LeafCounts {
  const char* function;
  uint64_t cycles;
  uint64_t instructions;
};
inline constexpr LeafCounts kAlpha{"ratio_alpha", 3000009, 1200007};
inline constexpr LeafCounts kBeta{"ratio_beta", 1500001, 2000003};
inline constexpr LeafCounts kGamma{"ratio_gamma", 7000001, 999983};

// Counted after the last overflow: collector_final_counters.
inline constexpr LeafCounts kFinal{"collector_final_counters", 7771, 1111};

// The -h value the experiment records and the clock rate in its header.
inline constexpr const char* kCounters = "cycles,1000003,insts,1000003";
inline constexpr double kClockMhz = 2000;

// A second experiment (hwc_counter_experiment DIR --other) of other counters
// in another order, on the same stacks: counter 0 is branches, counter 1
// cycles. Analysed with the first, each count must reach its own metric.
inline constexpr const char* kOtherCounters = "branches,1000003,cycles,1000003";
struct OtherCounts {
  const char* function;
  uint64_t branches;
  uint64_t cycles;
};
inline constexpr OtherCounts kOtherAlpha{"ratio_alpha", 400009, 900007};
inline constexpr OtherCounts kOtherBeta{"ratio_beta", 200003, 1100009};
inline constexpr OtherCounts kOtherGamma{"ratio_gamma", 600001, 300001};

}  // namespace lumen::hwc::truth
