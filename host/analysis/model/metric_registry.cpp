#include "metric_registry.h"

#include <algorithm>
#include <stdexcept>

namespace lumen::analysis {

std::vector<size_t> MetricRegistry::add_plugin(const std::string& plugin, const lumen_metric_def* metrics,
                                               size_t count) {
  std::vector<size_t> indices;
  for (size_t i = 0; i < count; ++i) {
    const std::string keyword = metrics[i].keyword ? metrics[i].keyword : "";
    const uint32_t default_flavors =
        metrics[i].default_flavors != 0 ? metrics[i].default_flavors & metrics[i].flavors : metrics[i].flavors;
    const bool hidden = metrics[i].hidden_by_default != 0;
    if (const auto known = find(keyword)) {
      if (plugin_of_[*known] != plugin)
        throw std::invalid_argument("plugins '" + plugin_of_[*known] + "' and '" + plugin +
                                    "' both define the metric keyword '" + keyword + "'");
      MetricDef& def = metrics_[*known];
      def.default_flavors |= default_flavors;
      def.hidden_by_default = def.hidden_by_default && hidden;
      indices.push_back(*known);
      continue;
    }
    indices.push_back(metrics_.size());
    MetricDef def{keyword, metrics[i].title ? metrics[i].title : keyword,
                  metrics[i].description ? metrics[i].description : "", metrics[i].unit, metrics[i].flavors,
                  std::nullopt, {}};
    def.default_flavors = default_flavors;
    def.hidden_by_default = hidden;
    metrics_.push_back(std::move(def));
    plugin_of_.push_back(plugin);
  }
  return indices;
}

std::string MetricRegistry::add_derived(const std::string& plugin, const lumen_derived_metric_def* metrics,
                                        size_t count) {
  for (size_t i = 0; i < count; ++i) {
    const lumen_derived_metric_def& d = metrics[i];
    const std::string keyword = d.keyword ? d.keyword : "";
    const auto numerator = find(d.numerator ? d.numerator : "");
    const auto denominator = find(d.denominator ? d.denominator : "");
    if (const auto known = find(keyword); known && plugin_of_[*known] == plugin && numerator && denominator &&
                                          metrics_[*known].ratio_of == std::make_pair(*numerator, *denominator))
      continue;  // another experiment's configuration derived it already
    if (keyword.empty() || find(keyword))
      return "plugin '" + plugin + "' derives the metric '" + keyword + "', " +
             (keyword.empty() ? "which has no keyword" : "a keyword already taken");
    if (!numerator || !denominator || metrics_[*numerator].ratio_of || metrics_[*denominator].ratio_of)
      return "plugin '" + plugin + "' derives '" + keyword + "' from '" + (d.numerator ? d.numerator : "") +
             "' / '" + (d.denominator ? d.denominator : "") + "', but these are not both metrics it can divide";
    MetricDef def{keyword, d.title ? d.title : keyword, d.description ? d.description : "", LUMEN_UNIT_RATIO,
                  metrics_[*numerator].flavors & metrics_[*denominator].flavors,
                  std::make_pair(*numerator, *denominator), {}};
    def.default_flavors = def.flavors;
    metrics_.push_back(std::move(def));
    plugin_of_.push_back(plugin);
  }
  return "";
}

std::optional<size_t> MetricRegistry::find(const std::string& keyword) const {
  for (size_t i = 0; i < metrics_.size(); ++i)
    if (metrics_[i].keyword == keyword) return i;
  return std::nullopt;
}

double MetricRegistry::value_of(size_t metric, std::span<const int64_t> row) const {
  if (row.empty()) return 0.0;
  const auto& ratio = metrics_[metric].ratio_of;
  if (!ratio) return static_cast<double>(row[metric]);
  const int64_t denominator = row[ratio->second];
  return denominator == 0 ? 0.0 : static_cast<double>(row[ratio->first]) / static_cast<double>(denominator);
}

}  // namespace lumen::analysis
