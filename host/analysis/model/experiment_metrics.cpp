#include "experiment_metrics.h"

#include <string>
#include <utility>
#include <vector>

#include "format_error.h"
#include "interval_split.h"

namespace lumen::analysis {

namespace fs = std::filesystem;

namespace {

// A plugin whose metrics depend on its options learns them from the
// experiment (analysis_plugin.h, LUMEN_ANALYSIS_CONFIGURE).
void configure_plugin(const host::AnalysisHalf& half, const fs::path& experiment, const YAML::Node& options) {
  if (!half.library.has(LUMEN_ANALYSIS_CONFIGURE)) return;
  std::vector<std::pair<std::string, std::string>> texts;
  if (options && options.IsMap())
    for (const auto& o : options) texts.emplace_back(o.first.as<std::string>(), o.second.as<std::string>());
  std::vector<lumen_option_value> values;
  for (const auto& [key, value] : texts) values.push_back({key.c_str(), value.c_str()});
  char error[512] = "";
  const auto configure = half.library.get<int(const char*, const lumen_option_value*, size_t, char*, size_t)>(
      LUMEN_ANALYSIS_CONFIGURE);
  if (configure(experiment.c_str(), values.data(), values.size(), error, sizeof error) != 0)
    throw FormatError(error);
}

// Metrics a plugin computes from others (analysis_plugin.h,
// LUMEN_ANALYSIS_DERIVED_METRICS), once its own metrics are known.
void add_derived_metrics(const host::AnalysisHalf& half, MetricRegistry& registry) {
  if (!half.library.has(LUMEN_ANALYSIS_DERIVED_METRICS)) return;
  size_t count = 0;
  const lumen_derived_metric_def* derived =
      half.library.get<const lumen_derived_metric_def*(size_t*)>(LUMEN_ANALYSIS_DERIVED_METRICS)(&count);
  if (const std::string problem = registry.add_derived(half.descriptor->name, derived, derived ? count : 0);
      !problem.empty())
    throw FormatError(problem);
}

}  // namespace

void register_metrics(Experiment& experiment, MetricRegistry& registry) {
  for (size_t i = 0; i < experiment.data_files().size(); ++i) {
    const DataFile& file = experiment.data_files()[i];
    const host::AnalysisHalf& half = *file.half;
    configure_plugin(half, experiment.path(), file.options);
    const size_t base = registry.add_plugin(file.plugin, half.descriptor->metrics, half.descriptor->metric_count);
    register_split_metrics(half, base, registry);
    add_derived_metrics(half, registry);
    experiment.set_metric_base(i, base);
  }
}

}  // namespace lumen::analysis
