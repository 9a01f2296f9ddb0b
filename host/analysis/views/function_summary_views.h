// er_print -fsummary, -fsingle FUNC and -csingle FUNC: one function at a
// time. A summary gives every selected metric of the function, its size,
// address, source file, object file, load object, mangled name and the
// other symbols at its address (aliases, shown once under one name).
#pragma once

#include <string>

#include "profile.h"
#include "structure_views.h"
#include "view_table.h"

namespace lumen::analysis {

// Every function in the functions view's order and limit.
std::string function_summaries(const Profile& profile, const ProgramStructure& structure,
                               const MetricRegistry& registry, const ViewRequest& request, OutputFormat format);

// The functions named `name`; throws std::runtime_error when none is.
std::string function_summary(const Profile& profile, const ProgramStructure& structure, const MetricRegistry& registry,
                             const ViewRequest& request, const std::string& name, OutputFormat format);

// The callers-callees rows of the functions named `name`.
ViewTable callers_callees_of(const Profile& profile, const ProgramStructure& structure,
                             const MetricRegistry& registry, const ViewRequest& request, const std::string& name);

}  // namespace lumen::analysis
