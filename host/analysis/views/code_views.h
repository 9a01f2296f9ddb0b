// er_print -lines and -pcs: metrics per source line and per instruction
// address, ordered by the sort metric and limited like -functions.
#pragma once

#include "code_profile.h"
#include "structure_views.h"
#include "view_table.h"

namespace lumen::analysis {

ViewTable lines_view(const CodeProfile& code, const ProgramStructure& structure, const MetricRegistry& registry,
                     const ViewRequest& request);

ViewTable pcs_view(const CodeProfile& code, const ProgramStructure& structure, const MetricRegistry& registry,
                   const ViewRequest& request);

// "f + 0x1a": an address as an offset into its function.
std::string address_in_function(const ProgramStructure& structure, FunctionId function, uint64_t address);

}  // namespace lumen::analysis
