// The analysis halves er_print and the other er_* tools may use, by plugin
// name: the shipped ones, those of the LUMEN_PLUGIN_PATH directories, and
// those the user names (--plugin). Never one from a directory an experiment
// records: an experiment is data people send each other, and opening a
// library runs its code.
//
// What each plugin offers is read from its manifest (manifest.yaml); a half
// is opened only when it is needed: when an experiment holds its data file,
// or when the user runs one of its views. A plugin that no run needs is
// never loaded, so a broken or hostile one elsewhere in the path harms
// nothing. A directory without a manifest is loaded when a name is looked
// for that no manifest gives, with a note.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plugin_catalog.h"

namespace lumen::analysis {

class AnalysisPlugins {
 public:
  // Throws PluginError when two plugins claim one name, data file or metric
  // keyword, or a manifest the user named (--plugin) cannot be read. A
  // malformed manifest elsewhere is reported (file and line) on stderr and
  // its plugin skipped.
  static AnalysisPlugins load(const std::filesystem::path& plugin_root,
                              const std::vector<std::filesystem::path>& search_path = {},
                              const std::vector<host::PluginDirectory>& named = {});
  // What er_print loads: the shipped plugins, those of LUMEN_PLUGIN_PATH, and
  // the plugin directories given with --plugin (relative to the current
  // directory).
  static AnalysisPlugins for_command_line(const std::vector<std::string>& plugin_directories);

  // The plugin's analysis half, loaded on first use and checked against its
  // manifest; nullptr when no plugin has that name or it cannot be loaded
  // (problem() says why).
  const host::AnalysisHalf* find(const std::string& plugin) const;
  // Why find(plugin) returned nullptr for a plugin that exists; else empty.
  std::string problem(const std::string& plugin) const;

  // Every plugin's description, by plugin name, for listing and finding
  // views: as its manifest describes it, nothing loaded, so a view's `run`
  // may be NULL (run a view through loaded_view). Loads the plugins without
  // a manifest.
  const std::map<std::string, std::shared_ptr<host::AnalysisHalf>>& all() const;
  // The view as the loaded half defines it; throws PluginError when the
  // half cannot be loaded, nullptr when it has no such view.
  const lumen_view_def* loaded_view(const std::string& plugin, const std::string& command) const;

  // What the plugin's manifest says of one of its collector options
  // (its kind, for showing a recorded value); nullptr when no manifest
  // describes it.
  const host::OptionSpec* option(const std::string& plugin, const std::string& option) const;

  // The plugins whose halves were loaded so far, by name (for tests).
  std::vector<std::string> loaded() const;

 private:
  struct Entry {
    host::PluginDirectory files;
    std::shared_ptr<const host::DescribedPlugin> manifest;  // null: loaded when found
    std::shared_ptr<host::AnalysisHalf> described;          // the manifest's descriptor, nothing loaded
    std::shared_ptr<host::AnalysisHalf> loaded;
    std::string problem;  // why it cannot be loaded
  };
  void add(Entry entry) const;
  void load_undescribed() const;

  // Mutable: halves are loaded by const look-ups, on demand.
  mutable std::map<std::string, Entry> entries_;
  mutable std::vector<host::PluginDirectory> undescribed_;
  mutable std::map<std::string, std::shared_ptr<host::AnalysisHalf>> descriptions_;
};

}  // namespace lumen::analysis
