// The metrics an analysis session offers: the union of what the plugins
// that wrote its experiments declare, in a stable order, and the metrics
// derived from them (ratios such as CPI).
#pragma once

#include <lumen/plugin_abi.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace lumen::analysis {

struct MetricDef {
  std::string keyword;
  std::string title;
  std::string description;
  lumen_metric_unit unit = LUMEN_UNIT_COUNT;
  uint32_t flavors = 0;
  // A derived metric (unit LUMEN_UNIT_RATIO): its numerator's and
  // denominator's indices. Its own slot in a row's values stays 0; the
  // ratio is computed from the row's values when it is shown or sorted.
  std::optional<std::pair<size_t, size_t>> ratio_of;
  // A split metric (mpiwork): the keyword of the sampled metric whose values
  // it shares out (interval_split.h). Without that metric it stays 0, and
  // the default metric list leaves it out.
  std::string split_of;
  // What the default metric list shows of it (lumen_metric_def): these
  // flavors, and nothing while hidden. Experiments that configured the
  // metric differently are shown together: the union of their default
  // flavors, hidden only when every configuration hides it.
  uint32_t default_flavors = 0;
  bool hidden_by_default = false;
};

class MetricRegistry {
 public:
  // Adds the metrics one experiment's configuration of `plugin` declares: a
  // keyword the plugin declared before (another experiment's) is the same
  // metric. Returns each metric's index, in order. Throws
  // std::invalid_argument when another plugin has one of the keywords.
  std::vector<size_t> add_plugin(const std::string& plugin, const lumen_metric_def* metrics, size_t count);
  // Adds the plugin's derived metrics (one the plugin derived already from
  // the same operands is kept); returns "" or what is wrong (an operand no
  // metric has, a keyword already taken).
  std::string add_derived(const std::string& plugin, const lumen_derived_metric_def* metrics, size_t count);
  std::optional<size_t> find(const std::string& keyword) const;
  void set_split_of(size_t metric, const std::string& sampled_keyword) { metrics_.at(metric).split_of = sampled_keyword; }
  const std::vector<MetricDef>& metrics() const { return metrics_; }
  size_t size() const { return metrics_.size(); }
  const std::string& plugin_of(size_t metric) const { return plugin_of_.at(metric); }

  // Metric `metric` of one row, in the metric's unit (nanoseconds stay
  // nanoseconds): the row's own value, or a derived metric's ratio (0 where
  // the denominator is 0). An empty row is all zeros.
  double value_of(size_t metric, std::span<const int64_t> row) const;

 private:
  std::vector<MetricDef> metrics_;
  std::vector<std::string> plugin_of_;  // the plugin declaring each metric
};

}  // namespace lumen::analysis
