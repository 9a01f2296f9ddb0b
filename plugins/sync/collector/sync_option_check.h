// collect's check of the sync plugin's options (sync_option_check.cpp).
#pragma once

#include <lumen/collector_plugin.h>

namespace lumen::sync {

extern const lumen_collector_hooks kHostHooks;

}  // namespace lumen::sync
