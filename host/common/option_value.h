// Turning what a user writes for a plugin option ("10ms", "500u", "on") into
// the canonical value the runtime hands the plugin (see lumen_option_kind).
#pragma once

#include <lumen/plugin_abi.h>

#include <optional>
#include <string>

namespace lumen::host {

struct CanonicalValue {
  std::optional<std::string> value;  // empty: not acceptable
  std::string problem;               // why not, for the error message
};

CanonicalValue canonical_option_value(const lumen_option_def& def, const std::string& written);

// How the option's values are written, for error messages: "a duration such as 10ms".
std::string describe_option_values(const lumen_option_def& def);

}  // namespace lumen::host
