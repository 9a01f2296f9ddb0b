#include "experiment_metrics.h"

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "experiment_metadata.h"
#include "format_error.h"
#include "interval_split.h"

namespace lumen::analysis {

namespace fs = std::filesystem;

namespace {

// The plugin's metrics for this experiment: the descriptor's, or what its
// configure declares from the experiment's facts (analysis_plugin.h).
lumen_configuration configure_plugin(const host::AnalysisHalf& half, const Experiment& experiment,
                                     const YAML::Node& options) {
  const lumen_analysis_descriptor& d = *half.descriptor;
  lumen_configuration configuration{sizeof(lumen_configuration), d.metrics, d.metric_count, d.derived_metrics,
                                    d.derived_metric_count, nullptr};
  if (d.configure == nullptr) return configuration;
  std::vector<std::pair<std::string, std::string>> texts;
  if (options && options.IsMap())
    for (const auto& o : options) texts.emplace_back(o.first.as<std::string>(), o.second.as<std::string>());
  std::vector<lumen_option_value> values;
  for (const auto& [key, value] : texts) values.push_back({key.c_str(), value.c_str()});
  std::vector<const char*> plugins;
  for (const DataFile& file : experiment.data_files()) plugins.push_back(file.plugin.c_str());
  const YAML::Node& header = experiment.header();
  const lumen_experiment_facts facts{sizeof(lumen_experiment_facts),
                                     experiment.path().c_str(),
                                     header[metadata::header::kClockMhz].as<double>(0),
                                     values.data(),
                                     values.size(),
                                     plugins.data(),
                                     plugins.size()};
  char error[512] = "";
  if (d.configure(&facts, &configuration, error, sizeof error) != 0) throw FormatError(error);
  return configuration;
}

}  // namespace

void register_metrics(Experiment& experiment, MetricRegistry& registry) {
  for (size_t i = 0; i < experiment.data_files().size(); ++i) {
    const DataFile& file = experiment.data_files()[i];
    const host::AnalysisHalf& half = *file.half;
    const lumen_configuration configuration = configure_plugin(half, experiment, file.options);
    std::vector<size_t> metric_index;
    try {
      metric_index = registry.add_plugin(file.plugin, configuration.metrics, configuration.metric_count);
    } catch (const std::invalid_argument& e) {
      throw FormatError(experiment.path().string() + ": " + e.what());
    }
    register_split_metrics(half, metric_index, registry);
    if (const std::string problem =
            registry.add_derived(file.plugin, configuration.derived_metrics, configuration.derived_metric_count);
        !problem.empty())
      throw FormatError(problem);
    experiment.set_configuration(i, std::move(metric_index), configuration.decoder_context);
  }
}

}  // namespace lumen::analysis
