// The header of a sub-experiment (a descendant process the runtime
// collects), written with the experiment's one header writer from the plan
// collect wrote, so it says everything the founder's says.
#pragma once

#include <string>
#include <vector>

#include "collection_plan.h"

namespace lumen::collector {

// Not signal-safe. This process's command line, word by word.
std::vector<std::string> command_words();

// Not signal-safe.
void write_descendant_header(const std::string& directory, const std::string& lineage,
                             const metadata::CollectionPlan& plan);

}  // namespace lumen::collector
