// Resolving the collection plan (collection_plan.h): which plugins run, with
// which canonical options, from a profile and command-line flags against the
// installed plugins.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "collection_plan.h"
#include "command_line.h"
#include "plugin_catalog.h"
#include "profile.h"

namespace lumen::collect {

struct InstalledPlugin {
  host::PluginDirectory files;
  host::CollectorHalf collector;
  host::AnalysisHalf analysis;
};

// Loads every plugin under the plugin directory; a broken plugin is an error
// naming its file (PluginError).
std::map<std::string, InstalledPlugin> load_installed_plugins(const std::filesystem::path& root);

// Loads the plugins of these directories (host::discover_plugin_directories):
// a broken plugin, two of one name, or two claiming one data file or metric
// keyword is an error naming the files (PluginError).
std::map<std::string, InstalledPlugin> load_plugins(const std::vector<host::PluginDirectory>& directories);

using metadata::CollectionPlan;
using metadata::LeftOut;
using metadata::PlannedPlugin;

// Throws ProfileError (with file and line) or UsageError (for flags).
CollectionPlan resolve_plan(const Profile& profile, const CollectRequest& request,
                            const std::map<std::string, InstalledPlugin>& installed);

// The runtime's copy (metadata::kPlanFile); throws std::runtime_error when
// it cannot be written.
void write_runtime_plan(const CollectionPlan& plan, const std::filesystem::path& file);

}  // namespace lumen::collect
