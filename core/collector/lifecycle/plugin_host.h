// Loads the collector halves named in the plan (already preloaded by collect)
// with Boost.DLL, checks their ABI, and starts and stops them.
#pragma once

#include <string>

#include "collection_plan.h"

namespace lumen::collector {

// Not signal-safe (all of this file). Failures are logged; the target runs on.
void plugins_start(const metadata::CollectionPlan& plan, const std::string& directory);
void plugins_thread_begin();

// Where plugins' streams are created from now on (a forked child's
// sub-experiment).
void plugins_set_directory(const std::string& directory);

void plugins_thread_end();
// In a forked child, on its only thread, before anything else the plugins
// do there (collector_plugin.h: fork_child).
void plugins_fork_child();
void plugins_stop();

// Not signal-safe. Unloads the stopped plugins' collector halves (a detach).
void plugins_unload();

}  // namespace lumen::collector
