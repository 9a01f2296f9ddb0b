// header.yaml of a descendant's sub-experiment, written by the runtime in
// that process (the founder's is written by collect).
#pragma once

#include <string>

namespace lumen::collector {

// Not signal-safe. `plugins_yaml` is the flow mapping of started plugins.
void write_descendant_header(const std::string& directory, const std::string& lineage, const std::string& plugins_yaml,
                             const std::string& follow);

}  // namespace lumen::collector
