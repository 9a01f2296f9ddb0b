// YAML scalars written by hand: the runtime in the target has no YAML
// library, and collect writes its header with the same code.
#pragma once

#include <string>
#include <vector>

namespace lumen::metadata {

// A double-quoted YAML scalar (control characters as \xNN).
std::string yaml_quoted(const std::string& text);

// `text` plain when YAML reads it back as the same string, else quoted.
std::string yaml_scalar(const std::string& text);

// A flow sequence of scalars: [a, "b c"].
std::string yaml_list(const std::vector<std::string>& items);

}  // namespace lumen::metadata
