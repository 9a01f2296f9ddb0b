#include "metric_registry.h"

namespace lumen::analysis {

size_t MetricRegistry::add_plugin(const std::string& plugin, const lumen_metric_def* metrics, size_t count) {
  for (const auto& [name, base] : plugin_base_)
    if (name == plugin) return base;
  const size_t base = metrics_.size();
  for (size_t i = 0; i < count; ++i)
    metrics_.push_back({metrics[i].keyword, metrics[i].title, metrics[i].description ? metrics[i].description : "",
                        metrics[i].unit, metrics[i].flavors});
  plugin_base_.emplace_back(plugin, base);
  return base;
}

std::optional<size_t> MetricRegistry::find(const std::string& keyword) const {
  for (size_t i = 0; i < metrics_.size(); ++i)
    if (metrics_[i].keyword == keyword) return i;
  return std::nullopt;
}

}  // namespace lumen::analysis
