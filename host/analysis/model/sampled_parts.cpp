#include "sampled_parts.h"
#include "metric_sum.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace lumen::analysis {

SampledParts::SampledParts(const std::vector<std::unique_ptr<Experiment>>& experiments,
                           const MetricRegistry& registry)
    : by_experiment_(experiments.size()) {
  for (size_t e = 0; e < experiments.size(); ++e) {
    const auto recorded = [&](size_t metric) {
      for (const DataFile& file : experiments[e]->data_files())
        if (std::find(file.metric_index.begin(), file.metric_index.end(), metric) != file.metric_index.end())
          return true;
      return false;
    };
    for (const DataFile& file : experiments[e]->data_files()) {
      const lumen_sampled_part* declared = file.half->descriptor->sampled_part;
      if (declared == nullptr || declared->sampled_metric == nullptr) continue;
      const auto sampled = registry.find(declared->sampled_metric);
      const size_t own = file.metric_index.size();
      if (!sampled || declared->metric >= own || declared->part_metric >= own || !recorded(*sampled)) continue;
      by_experiment_[e].push_back(
          {file.metric_index[declared->metric], file.metric_index[declared->part_metric], *sampled});
    }
  }
}

}  // namespace lumen::analysis
