// The hwc plugin's metrics for one experiment: one per counter collected,
// keyword = the counter's name; a cycle counter also as time at the CPU's
// clock rate; CPI and IPC, derived by er_print per row from the cycle and
// instruction counts, when both were collected. Derived from the -h option
// the experiment recorded.
#pragma once

#include <lumen/plugin_abi.h>

#include <cstddef>

#include <string>
#include <vector>

#include "../hwc_record.h"

namespace lumen::hwc {

// A count per counter, and a time for each cycle counter.
inline constexpr size_t kMaxMetrics = 2 * kMaxCounters;

struct CounterMetrics {
  std::vector<std::string> keywords;  // storage the descriptor's metrics point into
  std::vector<std::string> titles;
  std::vector<std::string> descriptions;
  std::vector<lumen_metric_def> metrics;
  // CPI = cycles / insts and IPC = insts / cycles; their operands point into
  // `keywords`.
  std::vector<lumen_derived_metric_def> derived;
  // For counter i: its count metric, and its time metric or -1.
  std::vector<int> count_metric;
  std::vector<int> time_metric;
  double clock_mhz = 0;
};

// Returns "" and fills `out`, or what is wrong with the counter list.
std::string counter_metrics(const std::string& counters_option, double clock_mhz, CounterMetrics* out);

}  // namespace lumen::hwc
