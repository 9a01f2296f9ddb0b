// Default metrics as gprofng's and the Analyzer's rc files give them: each
// `dmetrics` line adds items to one ordered list, and an item applies only
// when the experiments have its metric, so one file serves every kind of
// experiment. Each flavor of a metric has one place: named again, it moves
// to the later item, with its visibility. An item without flavor letters gives the metric's default
// flavors (lumen_metric_def.default_flavors). `any` stands for every metric
// not named before it, those their plugins hide by default hidden; `size` and
// `address` (columns lumen does not show) and metrics absent here are
// passed over. `dsort` items are tried in order; the first that applies
// sorts (`any`: the first metric shown).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "metric_registry.h"
#include "metric_spec.h"

namespace lumen::analysis {

// The metric spec the `dmetrics` lines give for these metrics, or nullopt
// when it would show no metric at all.
std::optional<std::string> default_metric_spec_from(const std::vector<std::string>& dmetrics,
                                                    const MetricRegistry& registry);

// The sort spec the `dsort` lines give ("name", "i.user"): the first item
// naming a column `shown` has; nullopt for the default (the first metric
// shown).
std::optional<std::string> default_sort_spec_from(const std::vector<std::string>& dsort, const MetricRegistry& registry,
                                                  const MetricSelection& shown);

}  // namespace lumen::analysis
