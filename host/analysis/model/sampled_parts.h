// A metric's part that another plugin samples, placed at the samples
// (analysis_plugin.h, lumen_analysis_descriptor.sampled_part): Total Thread
// Time's time on a CPU lies on clock profiling's samples, so that in every
// row of the views built on stacks it is at least the CPU time there, and
// lies where the CPU time was sampled, at the samples' own moments (their
// stitches: an OpenMP worker's task, its wait).
#pragma once

#include <algorithm>
#include <cstddef>
#include <set>
#include <tuple>
#include <memory>
#include <vector>

#include "experiment.h"
#include "metric_registry.h"
#include "metric_sum.h"
#include "stack_aggregate.h"

namespace lumen::analysis {

class SampledParts {
 public:
  // The parts declared by the plugins of each experiment whose sampled
  // metric the experiment recorded too.
  SampledParts(const std::vector<std::unique_ptr<Experiment>>& experiments, const MetricRegistry& registry);

  // In every entry of a thread with samples of a part's sampled metric,
  // the samples in place of the plugin's own part: after the last event is
  // added, before finish().
  void place(StackAggregate& aggregate) const {
    place_in([&aggregate](auto&& visit) { aggregate.for_each_entry(visit); });
  }
  // The same in any sums of a thread's events (its share of a time bin):
  // for_each(visit) calls visit(experiment, thread id, values) for each.
  template <typename ForEach>
  void place_in(ForEach&& for_each) const;

 private:
  struct Part {
    size_t metric;  // registry indices
    size_t part;
    size_t sampled;
  };
  std::vector<std::vector<Part>> by_experiment_;
};

template <typename ForEach>
void SampledParts::place_in(ForEach&& for_each) const {
  if (std::all_of(by_experiment_.begin(), by_experiment_.end(), [](const auto& parts) { return parts.empty(); }))
    return;
  // (experiment, sampled metric, thread) that have samples.
  std::set<std::tuple<uint32_t, size_t, uint32_t>> sampled_threads;
  for_each([&](uint32_t experiment, uint32_t thread, int64_t* values) {
    for (const Part& part : by_experiment_[experiment])
      if (values[part.sampled] != 0) sampled_threads.emplace(experiment, part.sampled, thread);
  });
  for_each([&](uint32_t experiment, uint32_t thread, int64_t* values) {
    for (const Part& part : by_experiment_[experiment]) {
      if (!sampled_threads.count({experiment, part.sampled, thread})) continue;
      add_saturating(values[part.metric], saturating_difference(values[part.sampled], values[part.part]));
      values[part.part] = values[part.sampled];
    }
  });
}

}  // namespace lumen::analysis
