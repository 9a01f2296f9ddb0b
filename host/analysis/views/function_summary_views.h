// er_print -fsummary, -fsingle FUNC and -csingle FUNC: one function at a
// time. A summary gives every selected metric of the function, its size,
// address, source file, object file, load object, mangled name and the
// other symbols at its address (aliases, shown once under one name).
#pragma once

#include <string>

#include "stack_profile.h"
#include "structure_views.h"
#include "document.h"

namespace lumen::analysis {

// Every function in the functions view's order and limit.
Document function_summaries(const StackProfile& profile, const ProgramStructure& structure,
                            const MetricRegistry& registry, const ViewRequest& request);

// The functions named `name`; throws std::runtime_error when none is.
Document function_summary(const StackProfile& profile, const ProgramStructure& structure, const MetricRegistry& registry,
                          const ViewRequest& request, const std::string& name);

// The callers-callees rows of the functions named `name`.
ViewTable callers_callees_of(const StackProfile& profile, const ProgramStructure& structure,
                             const MetricRegistry& registry, const ViewRequest& request, const std::string& name);

}  // namespace lumen::analysis
