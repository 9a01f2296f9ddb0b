// Turning aggregated values into a view's columns and cells, for views whose
// rows are not functions of the metric engine (lines, PCs, source lines,
// instructions, threads): each row brings its exclusive and inclusive
// values; an attributed column shows the exclusive value there.
#pragma once

#include <vector>

#include "metric_engine.h"
#include "metric_spec.h"
#include "view_table.h"

namespace lumen::analysis {

std::vector<ViewColumn> columns_of(const MetricSelection& selection, const MetricRegistry& registry);

// Each metric of `selection` once, exclusive: for rows that are one share
// of the events (a thread, a time bin), whose inclusive value is the same.
MetricSelection exclusive_once(const MetricSelection& selection);

// A value in the metric's display unit (seconds for time); a percent column
// shows the share of `total`.
double cell_value(const MetricColumn& column, const MetricRegistry& registry, const Values* exclusive,
                  const Values* inclusive, const Values& total);

std::vector<double> row_values(const MetricSelection& selection, const MetricRegistry& registry,
                               const Values* exclusive, const Values* inclusive, const Values& total);

// A raw value in the metric's display unit (seconds for nanoseconds).
double shown_value(const MetricDef& metric, double raw);

// The value a sort key orders by (a derived metric's ratio included).
double sort_value_of(const SortKey& key, const MetricRegistry& registry, const Values* exclusive,
                     const Values* inclusive);

std::string sort_title(const SortKey& key, const MetricRegistry& registry);

}  // namespace lumen::analysis
