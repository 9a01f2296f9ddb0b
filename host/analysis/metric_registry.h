// The metrics an analysis session offers: the union of what the plugins
// that wrote its experiments declare, in a stable order.
#pragma once

#include <lumen/plugin_abi.h>

#include <optional>
#include <string>
#include <vector>

namespace lumen::analysis {

struct MetricDef {
  std::string keyword;
  std::string title;
  std::string description;
  lumen_metric_unit unit = LUMEN_UNIT_COUNT;
  uint32_t flavors = 0;
};

class MetricRegistry {
 public:
  // Adds the plugin's metrics (once per plugin name); returns the index of
  // its first metric.
  size_t add_plugin(const std::string& plugin, const lumen_metric_def* metrics, size_t count);
  std::optional<size_t> find(const std::string& keyword) const;
  const std::vector<MetricDef>& metrics() const { return metrics_; }
  size_t size() const { return metrics_.size(); }

 private:
  std::vector<MetricDef> metrics_;
  std::vector<std::pair<std::string, size_t>> plugin_base_;
};

}  // namespace lumen::analysis
