// Oracle's metric and sort specifications:
//   metrics  e.%user:i.user:name   flavor (e, i, a) + visibility (. value,
//            % percentage of <Total>, + value, ! hidden) + keyword; "name"
//            places the name column; a keyword without a flavor means both
//            exclusive and inclusive.
//            gprofng's keywords: "default" (the default list), "all" (every
//            metric) and "hwc" (every hardware counter), each with an
//            optional flavor and visibility ("e.%all"); "size" and
//            "address" (a function's size and entry; "!size" hides it).
//   sort     e.user | i.user | user (exclusive) | name; a leading "-"
//            sorts smallest first; several items: the first shown sorts
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "metric_registry.h"

namespace lumen::analysis {

struct SpecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Flavor { Exclusive, Inclusive, Attributed };

struct MetricColumn {
  Flavor flavor = Flavor::Exclusive;
  size_t metric = 0;
  bool percent = false;
};

struct MetricSelection {
  std::vector<MetricColumn> columns;
  size_t name_position = 0;  // the name column comes before columns[name_position]
  // gprofng's "size" and "address" keywords: each function's size in bytes
  // and the address of its entry, beside the metrics.
  bool show_size = false;
  bool show_address = false;
};

struct SortKey {
  bool by_name = false;
  bool reverse = false;  // "-e.user": smallest first
  Flavor flavor = Flavor::Exclusive;
  size_t metric = 0;
};

MetricSelection parse_metric_spec(const std::string& spec, const MetricRegistry& registry);
// One sort item; throws SpecError for an unknown metric.
SortKey parse_sort_spec(const std::string& spec, const MetricRegistry& registry);
// The first item of a sort spec ("i.user:e.user", tried in order) that
// sorts by a column `shown` has ("name" always does); nullopt when none
// does, and the sort is then the default one (as Oracle's er_print ignores
// such a sort): a view is never sorted by a metric it does not show.
std::optional<SortKey> visible_sort_key(const std::string& spec, const MetricSelection& shown,
                                        const MetricRegistry& registry);

// "e.user", "i.%user", "a.user": the key a column has in CSV and JSON.
std::string column_key(const MetricColumn& column, const MetricRegistry& registry);
char flavor_letter(Flavor flavor);
std::string flavor_word(Flavor flavor);  // "Exclusive", ...

// The metrics a view shows by default: the exclusive and inclusive flavors
// among each metric's default flavors, with percentages (e.%M:i.%M) for the
// first, which sorts by default (not for a derived ratio, which has no
// percentage); not the metrics their plugins hide by default (User CPU
// Time beside Total CPU Time), nor split metrics whose sampled metric no
// experiment has.
std::string default_metric_spec(const MetricRegistry& registry);

}  // namespace lumen::analysis
