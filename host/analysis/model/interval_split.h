// Metrics a plugin defines by splitting another plugin's samples by the
// intervals its own events (and spans) cover on each thread
// (analysis_plugin.h, lumen_analysis_descriptor.interval_splits): MPI's
// mpiwait and mpiwork are clock samples inside and outside MPI calls. A
// sample's value goes to one of the two metrics on the sample's own stack,
// so both are attributed like any other metric, and inside + outside
// equals the sampled total (one of them may be none: OpenMP Wait counts the
// off-CPU states inside waits, and nothing of those outside).
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "experiment.h"
#include "metric_registry.h"

namespace lumen::analysis {

// Marks the split's metrics of a plugin whose metrics are at `metric_index`
// in the registry.
void register_split_metrics(const host::AnalysisHalf& half, const std::vector<size_t>& metric_index,
                            MetricRegistry& registry);

class IntervalSplits {
 public:
  // Decodes the events of every splitting plugin in every experiment that
  // recorded one, keeping the intervals they cover, per thread.
  IntervalSplits(const std::vector<std::unique_ptr<Experiment>>& experiments, const MetricRegistry& registry);

  // Adds to `row` (one value per registry metric) the shares `event`, an
  // event of `file` in experiment `experiment`, gives to split metrics.
  void add_shares(size_t experiment, const DataFile& file, const lumen_event& event, int64_t* row) const;
  // Whether no split applies in the experiment (add_shares adds nothing).
  bool none_in(size_t experiment) const { return by_experiment_[experiment].empty(); }

 private:
  using Intervals = std::vector<std::pair<uint64_t, uint64_t>>;  // [begin, end], sorted, disjoint

  static constexpr size_t kNone = SIZE_MAX;     // no metric for the samples outside
  static constexpr size_t kBad = SIZE_MAX - 1;  // a declaration out of range

  struct Split {
    size_t sampled;  // registry indices (outside: kNone for none)
    size_t inside;
    size_t outside;
    size_t duration_metric;  // the plugin's own index
    const char* span_name;   // nullptr: no spans
    std::unordered_map<uint32_t, Intervals> by_thread;
  };

  static bool covers(const Intervals& intervals, uint64_t time_ns);

  std::vector<std::vector<Split>> by_experiment_;
};

}  // namespace lumen::analysis
