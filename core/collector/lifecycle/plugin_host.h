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

// Not signal-safe. After an attach: the program's bound calls of the
// functions the started plugins interpose on (LUMEN_INTERPOSES_AFTER_ATTACH)
// lead to their interposers, in every object loaded now and, until
// plugins_stop_interposing, every object loaded later (call again then).
// Returns how many call slots it pointed at them.
int plugins_interpose_program_calls();
void plugins_stop_interposing();
bool plugins_interposing();

// Whether a plugin started has interposers (the program's calls are led to
// them after an attach).
bool plugins_have_interposers();

// [signal-safe] How many of the plugins' interposers the calling thread is
// inside.
int plugins_calls_in_progress();

}  // namespace lumen::collector
