#include "analysis_plugins.h"

#include <cstdlib>
#include <iostream>

#include "install_layout.h"

namespace lumen::analysis {

namespace fs = std::filesystem;

AnalysisPlugins AnalysisPlugins::load(const fs::path& plugin_root, const std::vector<fs::path>& search_path,
                                      const std::vector<host::PluginDirectory>& named) {
  AnalysisPlugins plugins;
  for (const host::PluginDirectory& dir : host::discover_plugin_directories(plugin_root, search_path, named)) {
    std::shared_ptr<const host::DescribedPlugin> manifest;
    try {
      manifest = host::read_plugin_manifest(dir);
    } catch (const host::ManifestError& e) {
      if (dir.origin == host::PluginOrigin::Explicit) throw host::PluginError(e.what());
      std::cerr << "lumen: " << e.what() << "; the plugin in " << dir.directory.string() << " is skipped\n";
      continue;
    }
    if (manifest == nullptr) {
      plugins.undescribed_.push_back(dir);
      continue;
    }
    auto described = std::make_shared<host::AnalysisHalf>();
    described->path = dir.analysis_path();
    described->descriptor = manifest->analysis();
    plugins.add({dir, manifest, described, nullptr, ""});
  }
  return plugins;
}

AnalysisPlugins AnalysisPlugins::for_command_line(const std::vector<std::string>& plugin_directories) {
  std::vector<host::PluginDirectory> named;
  for (const std::string& directory : plugin_directories)
    named.push_back(host::explicit_plugin_directory(directory, fs::current_path()));
  return load(host::plugin_directory(), host::plugin_search_path(std::getenv("LUMEN_PLUGIN_PATH")), named);
}

void AnalysisPlugins::add(Entry entry) const {
  std::vector<const host::AnalysisHalf*> all{entry.described.get()};
  for (const auto& [name, known] : entries_) all.push_back(known.described.get());
  host::check_plugins_distinct(all);
  descriptions_.clear();
  const std::string name = entry.described->descriptor->name;
  entries_.emplace(name, std::move(entry));
}

// Without a manifest, the only way to learn a plugin's name and views is to
// open it: done once, when something is looked for that no manifest names.
void AnalysisPlugins::load_undescribed() const {
  std::vector<host::PluginDirectory> directories;
  directories.swap(undescribed_);
  for (const host::PluginDirectory& dir : directories) {
    std::cerr << "lumen: note: plugin directory " << dir.directory.string() << " has no " << host::kManifestFile
              << "; its analysis half is loaded to learn what it offers\n";
    try {
      auto half = std::make_shared<host::AnalysisHalf>(host::load_analysis_half(dir.analysis_path()));
      add({dir, nullptr, half, half, ""});
    } catch (const host::PluginError& e) {
      std::cerr << "lumen: " << e.what() << "; the plugin in " << dir.directory.string() << " is skipped\n";
    }
  }
}

const host::AnalysisHalf* AnalysisPlugins::find(const std::string& plugin) const {
  if (entries_.find(plugin) == entries_.end() && !undescribed_.empty()) load_undescribed();
  const auto it = entries_.find(plugin);
  if (it == entries_.end()) return nullptr;
  Entry& entry = it->second;
  if (entry.loaded == nullptr && entry.problem.empty()) {
    try {
      entry.loaded =
          std::make_shared<host::AnalysisHalf>(host::load_described_analysis_half(entry.files, entry.manifest.get()));
      descriptions_.clear();
    } catch (const host::PluginError& e) {
      entry.problem = e.what();
    }
  }
  return entry.loaded.get();
}

std::string AnalysisPlugins::problem(const std::string& plugin) const {
  const auto it = entries_.find(plugin);
  return it == entries_.end() ? "" : it->second.problem;
}

const std::map<std::string, std::shared_ptr<host::AnalysisHalf>>& AnalysisPlugins::all() const {
  if (!undescribed_.empty()) load_undescribed();
  if (descriptions_.empty())
    for (const auto& [name, entry] : entries_) descriptions_[name] = entry.loaded ? entry.loaded : entry.described;
  return descriptions_;
}

const host::OptionSpec* AnalysisPlugins::option(const std::string& plugin, const std::string& option) const {
  const auto it = entries_.find(plugin);
  if (it == entries_.end() || it->second.manifest == nullptr) return nullptr;
  for (const host::OptionSpec& spec : it->second.manifest->data().collector.options)
    if (spec.name == option) return &spec;
  return nullptr;
}

const lumen_view_def* AnalysisPlugins::loaded_view(const std::string& plugin, const std::string& command) const {
  const host::AnalysisHalf* half = find(plugin);
  if (half == nullptr) {
    const std::string why = problem(plugin);
    throw host::PluginError(why.empty() ? "no plugin '" + plugin + "' is installed" : why);
  }
  for (size_t i = 0; i < half->descriptor->view_count; ++i)
    if (command == half->descriptor->views[i].command) return &half->descriptor->views[i];
  return nullptr;
}

std::vector<std::string> AnalysisPlugins::loaded() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : entries_)
    if (entry.loaded) names.push_back(name);
  return names;
}

}  // namespace lumen::analysis
