// er_print -sample_list, -lwp_list, -cpu_list: per experiment, what the
// selection chooses and how many there are (gprofng's "Exp Sel Total");
// -describe: the data each experiment recorded and the filter keywords;
// -cmetric_list and -indx_metric_list: the metrics those views offer;
// -psummary and -lsummary: a table's rows as one summary each.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "document.h"
#include "experiment.h"
#include "metric_registry.h"

namespace lumen::analysis {

struct SelectionCount {
  std::string selection;  // "all", "1-3"
  uint64_t total = 0;
};

// One record per experiment: its id, the selection and the total.
Document selection_list(const std::string& view, const std::string& title, const std::vector<SelectionCount>& counts);

// The distinct CPUs the events of `experiment` recorded (none: all -1).
uint64_t cpus_recorded(const Experiment& experiment);

Document describe_view(const std::vector<std::unique_ptr<Experiment>>& experiments);

// The metrics with a flavor among `flavors` (LUMEN_FLAVOR_*).
Document metric_list_of(const std::string& view, const std::string& title, const MetricRegistry& registry,
                        uint32_t flavors);

// Each row of `table` (<Total> first) as a record of its fields and columns.
Document table_as_summaries(const std::string& view, const ViewTable& table);

}  // namespace lumen::analysis
