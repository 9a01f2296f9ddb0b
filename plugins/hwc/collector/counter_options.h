// The -h value as the plugin reads it, in the target's start and in
// collect's checks before the target starts (host_checks.cpp).
#pragma once

#include <lumen/plugin_abi.h>

#include <string>
#include <vector>

#include "counter_encoding.h"

namespace lumen::hwc {

// The counters of the -h value, resolved; "" or what is wrong.
std::string resolve(const char* text, std::vector<EncodedCounter>* encoded);

// The value of the "counters" option, or "".
const char* counters_option(const lumen_option_value* options, size_t count);

}  // namespace lumen::hwc
