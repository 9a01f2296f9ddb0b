// Views of metrics on program structure: functions, callers-callees, load
// objects. Each is built from a StackProfile and a metric selection.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "metric_spec.h"
#include "stack_profile.h"
#include "view_table.h"

namespace lumen::analysis {

struct ViewRequest {
  MetricSelection metrics;
  SortKey sort;
  std::optional<size_t> limit;  // rows after <Total>
};

// Functions other than <Total> in the order and number the functions view
// shows them.
std::vector<FunctionId> ordered_functions(const StackProfile& profile, const ProgramStructure& structure,
                                          const MetricRegistry& registry, const ViewRequest& request);

// The functions with data that `name` names (is_named: demangled, with or
// without parameters or scope, or mangled).
std::vector<FunctionId> functions_named(const StackProfile& profile, const ProgramStructure& structure,
                                        const std::string& name);
// The same, and with `which` (1-based, as gprofng's `#` argument: `source f
// 2`) only that one of them; throws std::runtime_error naming the range
// when there is no such one. `which` 0: all.
std::vector<FunctionId> functions_named(const StackProfile& profile, const ProgramStructure& structure,
                                        const std::string& name, size_t which);
// Of `found`, all (`which` 0) or the `which`th, as above.
std::vector<FunctionId> nth_named(std::vector<FunctionId> found, const std::string& name, size_t which);

ViewTable functions_view(const StackProfile& profile, const ProgramStructure& structure, const MetricRegistry& registry,
                         const ViewRequest& request);

// For every function (ordered and limited as the functions view), its
// callers and callees with attributed values. An attributed column is added
// in front when the selection has none.
ViewTable callers_callees_view(const StackProfile& profile, const ProgramStructure& structure,
                               const MetricRegistry& registry, ViewRequest request);

ViewTable objects_view(const StackProfile& profile, const ProgramStructure& structure, const MetricRegistry& registry,
                       const ViewRequest& request);

}  // namespace lumen::analysis
