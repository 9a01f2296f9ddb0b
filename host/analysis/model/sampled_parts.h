// A metric's part that another plugin samples, placed at the samples
// (analysis_plugin.h, lumen_analysis_descriptor.sampled_part): Total Thread
// Time's time on a CPU lies on clock profiling's samples, so that in every
// row of the views built on stacks it is at least the CPU time there, and
// lies where the CPU time was sampled, at the samples' own moments (their
// stitches: an OpenMP worker's task, its wait).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "experiment.h"
#include "metric_registry.h"
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
  void place(StackAggregate& aggregate) const;

 private:
  struct Part {
    size_t metric;  // registry indices
    size_t part;
    size_t sampled;
  };
  std::vector<std::vector<Part>> by_experiment_;
};

}  // namespace lumen::analysis
