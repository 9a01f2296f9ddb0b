// The hwc collector half's services to collect (lumen_collector_hooks), and
// the counter list both they and start() resolve.
#pragma once

#include <lumen/collector_plugin.h>

#include <string>
#include <vector>

#include "counter_encoding.h"

namespace lumen::hwc {

// The counters of the plugin's "counters" option, resolved; "" or what is
// wrong. Not signal-safe.
std::string resolve_counters(const lumen_option_value* options, size_t count, std::vector<EncodedCounter>* encoded);

extern const lumen_collector_hooks kHostHooks;

}  // namespace lumen::hwc
