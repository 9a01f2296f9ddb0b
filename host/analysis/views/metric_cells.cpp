#include "metric_cells.h"

namespace lumen::analysis {

std::vector<ViewColumn> columns_of(const MetricSelection& selection, const MetricRegistry& registry) {
  std::vector<ViewColumn> columns;
  for (const MetricColumn& c : selection.columns) {
    const MetricDef& m = registry.metrics()[c.metric];
    const std::string flavor = c.flavor == Flavor::Exclusive ? "Excl." : c.flavor == Flavor::Inclusive ? "Incl." : "Attr.";
    columns.push_back({column_key(c, registry), flavor, m.title, m.unit, c.percent});
  }
  return columns;
}

double cell_value(const MetricColumn& column, const MetricRegistry& registry, const Values* exclusive,
                  const Values* inclusive, const Values& total) {
  const Values* source = column.flavor == Flavor::Inclusive ? inclusive : exclusive;
  const double raw = source != nullptr ? registry.value_of(column.metric, *source) : 0.0;
  if (column.percent) {
    const double whole = registry.value_of(column.metric, total);
    return whole == 0 ? 0.0 : 100.0 * raw / whole;
  }
  return shown_value(registry.metrics()[column.metric], raw);
}

double shown_value(const MetricDef& metric, double raw) {
  return metric.unit == LUMEN_UNIT_NANOSECONDS ? raw / 1e9 : raw;
}

std::vector<double> row_values(const MetricSelection& selection, const MetricRegistry& registry,
                               const Values* exclusive, const Values* inclusive, const Values& total) {
  std::vector<double> values;
  for (const MetricColumn& c : selection.columns) values.push_back(cell_value(c, registry, exclusive, inclusive, total));
  return values;
}

double sort_value_of(const SortKey& key, const MetricRegistry& registry, const Values* exclusive,
                     const Values* inclusive) {
  const Values* source = key.flavor == Flavor::Inclusive ? inclusive : exclusive;
  return source != nullptr ? registry.value_of(key.metric, *source) : 0.0;
}

std::string sort_title(const SortKey& key, const MetricRegistry& registry) {
  if (key.by_name) return "name";
  return flavor_word(key.flavor) + " " + registry.metrics()[key.metric].title;
}

MetricSelection exclusive_once(const MetricSelection& selection) {
  MetricSelection once;
  for (const MetricColumn& c : selection.columns) {
    const MetricColumn column{Flavor::Exclusive, c.metric, c.percent};
    bool seen = false;
    for (const MetricColumn& o : once.columns) seen = seen || (o.metric == column.metric && o.percent == column.percent);
    if (!seen) once.columns.push_back(column);
  }
  return once;
}

}  // namespace lumen::analysis
