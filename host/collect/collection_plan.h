// The collection plan: which plugins run, with which canonical options,
// resolved from a profile and command-line flags against the installed
// plugins; and the files that hand it to the runtime and to analysis.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

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

struct PlannedPlugin {
  std::string name;
  std::string version;
  std::string data_file;
  std::filesystem::path collector_path;
  std::vector<std::pair<std::string, std::string>> options;  // canonical values, declaration order
};

// What a plugin left out because this machine cannot do it (a hardware
// counter without a PMU): the target runs without it; the header says why.
struct LeftOut {
  std::string plugin;
  std::string what;
  std::string reason;
};

struct CollectionPlan {
  std::string profile_path;
  std::string follow = "on";  // descendant processes: on, off, all, =REGEX
  std::vector<PlannedPlugin> plugins;
  RuntimeSettings runtime;  // samples, pause signal, window, size limit, archiving
  long long origin_ns = 0;  // CLOCK_MONOTONIC when collect started the target: time zero of -t
  std::vector<LeftOut> left_out;
};

// Throws ProfileError (with file and line) or UsageError (for flags).
CollectionPlan resolve_plan(const Profile& profile, const CollectRequest& request,
                            const std::map<std::string, InstalledPlugin>& installed);

// The runtime's copy ("collector.plan", see core/collector/runtime_plan.h).
void write_runtime_plan(const CollectionPlan& plan, const std::filesystem::path& file);

}  // namespace lumen::collect
