// The optional host hooks of a plugin's collector half (collector_plugin.h),
// as collect uses them before the target starts.
#pragma once

#include <lumen/collector_plugin.h>

#include <map>
#include <string>

#include "plan_resolution.h"

namespace lumen::collect {

// The plugin's hooks, or NULL when it has none or they are of another ABI.
// Loads the collector half (loaded_collector).
const lumen_collector_hooks* host_hooks(const InstalledPlugin& plugin);

// Loads the collector half of every planned plugin, and only those, before
// the target starts: one that cannot be loaded or whose manifest is stale is
// an error (PluginError) naming its files.
void load_planned_collectors(const CollectionPlan& plan, const std::map<std::string, InstalledPlugin>& installed);

// Each planned plugin first leaves out what this machine cannot do (each
// reason printed on stderr and kept in plan.left_out; a plugin left with
// nothing is dropped from the plan, and the target runs without it), then
// checks the rest: a refusal (std::runtime_error) stops collect before the
// target starts, naming where the plugin's options were written.
void check_plan_here(CollectionPlan& plan, const std::map<std::string, InstalledPlugin>& installed,
                     const PlanOrigins& origins = {});

}  // namespace lumen::collect
