// Resolving the collection plan (collection_plan.h): which plugins run, with
// which canonical options, from a profile and command-line flags against the
// installed plugins.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collection_plan.h"
#include "command_line.h"
#include "plugin_catalog.h"
#include "profile.h"

namespace lumen::collect {

// A plugin collect knows. With a manifest (the usual case), `collector` and
// `analysis` hold the descriptors the manifest describes and nothing is
// loaded: their functions and host hooks are NULL until the collector half
// is loaded for a plan (loaded_collector). Without one, both halves are
// loaded to learn what the plugin offers.
struct InstalledPlugin {
  host::PluginDirectory files;
  host::CollectorHalf collector;
  host::AnalysisHalf analysis;
  std::shared_ptr<const host::DescribedPlugin> manifest;
  mutable std::shared_ptr<host::CollectorHalf> loaded;  // by loaded_collector
};

// The plugin's collector half, loaded on first use and checked against its
// manifest; PluginError naming the files when it cannot be loaded or the
// manifest is stale.
const lumen_collector_descriptor& loaded_collector(const InstalledPlugin& plugin);

// Whether the collector half has this host hook ("check",
// "describe_values", "leave_out"), without loading it.
bool offers_hook(const InstalledPlugin& plugin, const std::string& hook);

// Reads the manifests of every plugin under the plugin directory; a broken
// plugin is an error naming its file (PluginError).
std::map<std::string, InstalledPlugin> load_installed_plugins(const std::filesystem::path& root);

// Reads the manifests of these directories (host::discover_plugin_directories),
// loading the halves of a directory without one (with a note). A malformed
// manifest is reported by file and line and its plugin skipped (an error
// for a directory the user named); a broken plugin, two of one name, or two
// claiming one data file or metric keyword is an error naming the files
// (PluginError).
std::map<std::string, InstalledPlugin> load_plugins(const std::vector<host::PluginDirectory>& directories);

using metadata::CollectionPlan;
using metadata::LeftOut;
using metadata::PlannedPlugin;

// Where each planned plugin's options were written, for messages about
// them: a flag ("-h") where any came from the command line, else a
// profile's "file:line", else nothing (the defaults).
using PlanOrigins = std::map<std::string, std::string>;

// Throws ProfileError (with file and line) or UsageError (for flags); with
// `origins`, fills it.
CollectionPlan resolve_plan(const Profile& profile, const CollectRequest& request,
                            const std::map<std::string, InstalledPlugin>& installed, PlanOrigins* origins = nullptr);

// The runtime's copy (metadata::kPlanFile); throws std::runtime_error when
// it cannot be written.
void write_runtime_plan(const CollectionPlan& plan, const std::filesystem::path& file);

}  // namespace lumen::collect
