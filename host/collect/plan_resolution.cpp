#include "plan_resolution.h"

#include <fstream>
#include <iostream>
#include <optional>

#include "option_value.h"

namespace lumen::collect {

namespace fs = std::filesystem;

namespace {

std::string names_of(const std::map<std::string, InstalledPlugin>& installed) {
  std::string names;
  for (const auto& [name, plugin] : installed) names += (names.empty() ? "" : ", ") + name;
  return names.empty() ? "(none installed)" : names;
}

std::string option_names(const lumen_collector_descriptor& d) {
  std::string names;
  for (size_t i = 0; i < d.option_count; ++i) names += (names.empty() ? "" : ", ") + std::string(d.options[i].name);
  return names.empty() ? "(it takes none)" : names;
}

const lumen_option_def* find_option(const lumen_collector_descriptor& d, const std::string& name) {
  for (size_t i = 0; i < d.option_count; ++i)
    if (name == d.options[i].name) return &d.options[i];
  return nullptr;
}

// The options a user wrote for one plugin, before canonicalization.
struct Choice {
  std::map<std::string, std::string> written;
  std::map<std::string, std::string> where;  // for errors: "file:line" or "-p"
};

}  // namespace

std::map<std::string, InstalledPlugin> load_installed_plugins(const fs::path& root) {
  return load_plugins(host::find_plugin_directories(root));
}

namespace {

// What a directory offers: from its manifest, or by loading both halves.
InstalledPlugin describe_directory(const host::PluginDirectory& dir) {
  if (auto manifest = host::read_plugin_manifest(dir)) {
    InstalledPlugin plugin{dir, {dir.collector_path(), {}, manifest->collector(), nullptr},
                           {dir.analysis_path(), {}, manifest->analysis(), nullptr}, manifest, nullptr};
    return plugin;
  }
  std::cerr << "collect: note: plugin directory " << dir.directory.string() << " has no " << host::kManifestFile
            << "; both its halves are loaded to learn what it offers (lumen_add_plugin writes one)\n";
  InstalledPlugin plugin{dir, host::load_collector_half(dir.collector_path()),
                         host::load_analysis_half(dir.analysis_path()), nullptr, nullptr};
  const auto& c = *plugin.collector.descriptor;
  const auto& a = *plugin.analysis.descriptor;
  if (std::string(c.name) != a.name || std::string(c.data_file) != a.data_file)
    throw host::PluginError("plugin halves disagree: " + plugin.collector.path.string() + " is '" + c.name +
                            "' writing '" + c.data_file + "', " + plugin.analysis.path.string() + " is '" +
                            a.name + "' reading '" + a.data_file + "'");
  return plugin;
}

}  // namespace

const lumen_collector_descriptor& loaded_collector(const InstalledPlugin& plugin) {
  if (plugin.manifest == nullptr) return *plugin.collector.descriptor;
  if (plugin.loaded == nullptr)
    plugin.loaded = std::make_shared<host::CollectorHalf>(
        host::load_described_collector_half(plugin.files, plugin.manifest.get()));
  return *plugin.loaded->descriptor;
}

bool offers_hook(const InstalledPlugin& plugin, const std::string& hook) {
  if (plugin.manifest != nullptr) return plugin.manifest->has_hook(hook);
  const lumen_collector_hooks* hooks = plugin.collector.descriptor->host_hooks;
  if (hooks == nullptr) return false;
  return (hook == "check" && hooks->check) || (hook == "describe_values" && hooks->describe_values) ||
         (hook == "leave_out" && hooks->leave_out);
}

std::map<std::string, InstalledPlugin> load_plugins(const std::vector<host::PluginDirectory>& directories) {
  std::map<std::string, InstalledPlugin> installed;
  std::vector<const host::AnalysisHalf*> analysis_halves;
  for (const host::PluginDirectory& dir : directories) {
    std::optional<InstalledPlugin> found;
    try {
      found = describe_directory(dir);
    } catch (const host::ManifestError& e) {
      // One bad plugin in a search path must not stop every run; one the
      // user named is wanted, so its problem is theirs to see first.
      if (dir.origin == host::PluginOrigin::Explicit) throw host::PluginError(e.what());
      std::cerr << "collect: " << e.what() << "; the plugin in " << dir.directory.string() << " is skipped\n";
      continue;
    }
    InstalledPlugin& plugin = *found;
    const std::string name = plugin.collector.descriptor->name;
    const auto same_name = installed.find(name);
    if (same_name != installed.end())
      throw host::PluginError("two plugins are named '" + name + "': " + same_name->second.collector.path.string() +
                              " and " + plugin.collector.path.string());
    installed.emplace(name, std::move(plugin));
  }
  for (const auto& [name, plugin] : installed) analysis_halves.push_back(&plugin.analysis);
  host::check_plugins_distinct(analysis_halves);
  return installed;
}

CollectionPlan resolve_plan(const Profile& profile, const CollectRequest& request,
                            const std::map<std::string, InstalledPlugin>& installed, PlanOrigins* origins) {
  std::map<std::string, Choice> chosen;
  for (const auto& [name, settings] : profile.plugins) {
    const auto plugin = installed.find(name);
    if (plugin == installed.end())
      throw ProfileError(profile.path + ":" + std::to_string(settings.line) + ": unknown plugin '" + name +
                         "'; installed: " + names_of(installed));
    const auto& d = *plugin->second.collector.descriptor;
    Choice& choice = chosen[name];
    for (const auto& [key, option] : settings.options) {
      if (find_option(d, key) == nullptr)
        throw ProfileError(profile.path + ":" + std::to_string(option.line) + ": unknown option '" + key +
                           "' for plugin '" + name + "'; allowed: " + option_names(d));
      choice.written[key] = option.value;
      choice.where[key] = profile.path + ":" + std::to_string(option.line);
    }
  }
  // A plugin named by its path (collect --plugin, a profile's path:) is
  // named to be used.
  for (const auto& [name, plugin] : installed)
    if (plugin.files.origin == host::PluginOrigin::Explicit) chosen[name];
  for (const auto& [flag, value] : request.plugin_flags) {
    for (const auto& [name, plugin] : installed) {
      const auto& d = *plugin.collector.descriptor;
      if (d.flag.flag == nullptr || flag != d.flag.flag) continue;
      if (value == "off") {
        chosen.erase(name);
        continue;
      }
      std::string written = value;
      std::string option = d.flag.option != nullptr ? d.flag.option : "";
      for (size_t i = 0; i < d.flag.alias_count; ++i)
        if (value == d.flag.aliases[i].word) {
          written = d.flag.aliases[i].value;
          // "OPTION=VALUE": the word sets another option of the plugin
          // (-j heap: Java allocation sampling, not a JDK's path).
          const size_t equals = written.find('=');
          if (equals != std::string::npos && find_option(d, written.substr(0, equals)) != nullptr) {
            option = written.substr(0, equals);
            written = written.substr(equals + 1);
          }
        }
      Choice& choice = chosen[name];
      if (!option.empty() && !written.empty()) {
        choice.written[option] = written;
        choice.where[option] = "-" + flag;
      }
    }
  }
  // -J: an option of the plugin owning a flag, which it also turns on;
  // -k: one set only where that plugin is used.
  for (const CollectRequest::PluginOption& set : request.plugin_options)
    for (const auto& [name, plugin] : installed) {
      const auto& d = *plugin.collector.descriptor;
      if (d.flag.flag == nullptr || set.flag != d.flag.flag || find_option(d, set.option) == nullptr) continue;
      if (!set.turns_on && chosen.count(name) == 0) continue;
      chosen[name].written[set.option] = set.value;
      chosen[name].where[set.option] = set.given_as;
    }
  CollectionPlan plan;
  plan.profile_path = profile.path;
  plan.follow = request.follow;
  plan.runtime = request.runtime;
  plan.comments = request.comments;
  for (const auto& [name, choice] : chosen) {
    for (const auto& [option, where] : choice.where)
      if (origins != nullptr && ((*origins)[name].empty() || where[0] == '-')) (*origins)[name] = where;
    const InstalledPlugin& plugin = installed.at(name);
    const auto& d = *plugin.collector.descriptor;
    PlannedPlugin planned{name, d.version, d.data_file, plugin.files.collector_path(), {}};
    for (size_t i = 0; i < d.option_count; ++i) {
      const lumen_option_def& def = d.options[i];
      const auto written = choice.written.find(def.name);
      const std::string text = written != choice.written.end() ? written->second : def.default_value;
      const host::CanonicalValue canonical = host::canonical_option_value(def, text);
      if (!canonical.value) {
        const auto where = choice.where.find(def.name);
        const std::string origin = where == choice.where.end() ? "default of" : where->second + ":";
        if (where != choice.where.end() && where->second[0] == '-')
          throw UsageError(where->second + ": " + canonical.problem);
        throw ProfileError(origin + " option '" + def.name + "' of plugin '" + name + "': " + canonical.problem);
      }
      planned.options.emplace_back(def.name, *canonical.value);
    }
    plan.plugins.push_back(std::move(planned));
  }
  return plan;
}

void write_runtime_plan(const CollectionPlan& plan, const fs::path& file) {
  std::ofstream out(file);
  metadata::write_plan(plan, out);
  if (!out) throw std::runtime_error("cannot write " + file.string());
}

}  // namespace lumen::collect
