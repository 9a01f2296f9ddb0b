// Finding and opening plugins. A plugin is a directory holding collector.so
// and analysis.so. They come from, in this order:
//   1. lumen's own plugin directory (lib/lumen/plugins/NAME, "shipped");
//   2. each directory named in LUMEN_PLUGIN_PATH (colon-separated, absolute;
//      each holds NAME/ directories like the shipped one);
//   3. explicit plugin directories: collect --plugin PATH, a profile's
//      `plugins: NAME: {path: PATH}`, er_print --plugin PATH.
// Never the current directory, unless a user names it explicitly, and never
// a directory an experiment records: analysis tools load no code an
// experiment names.
// Both halves are opened with Boost.DLL and their descriptors checked
// (factory present, SDK version, same name and data file, no two plugins
// claiming one name, data file or metric keyword) before anything relies on
// them; every refusal names the files concerned.
#pragma once

#include <lumen/analysis_plugin.h>
#include <lumen/collector_plugin.h>

#include <boost/dll/shared_library.hpp>
#include "plugin_manifest.h"
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace lumen::host {

struct PluginError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A loaded half's descriptor is this lumen's reading of the plugin's
// (sdk_compatibility.h): the members the plugin's size covers, the rest
// absent; its host hooks likewise.
struct CollectorHalf {
  std::filesystem::path path;
  boost::dll::shared_library library;
  const lumen_collector_descriptor* descriptor = nullptr;
  std::shared_ptr<const void> read;  // what descriptor points to
};

struct AnalysisHalf {
  std::filesystem::path path;
  boost::dll::shared_library library;
  const lumen_analysis_descriptor* descriptor = nullptr;
  std::shared_ptr<const void> read;  // what descriptor points to
};

// Throw PluginError naming the file when the factory is missing or the SDK
// version is not one this lumen loads (sdk_refusal).
CollectorHalf load_collector_half(const std::filesystem::path& path);
AnalysisHalf load_analysis_half(const std::filesystem::path& path);

enum class PluginOrigin { Shipped, SearchPath, Explicit };
const char* origin_name(PluginOrigin origin);  // "shipped", "LUMEN_PLUGIN_PATH", ...

struct PluginDirectory {
  std::string name;  // the directory's name
  std::filesystem::path directory;
  PluginOrigin origin = PluginOrigin::Shipped;
  std::filesystem::path collector_path() const { return directory / "collector.so"; }
  std::filesystem::path analysis_path() const { return directory / "analysis.so"; }
  std::filesystem::path manifest_path() const { return directory / kManifestFile; }
};

// The directory's manifest (plugin_manifest.h); nullptr when it has none.
// Throws ManifestError (file and line) when it cannot be read.
std::shared_ptr<const DescribedPlugin> read_plugin_manifest(const PluginDirectory& directory);

// Loads a half and checks it against the manifest it was planned from
// (null: none): PluginError naming both files when they disagree.
CollectorHalf load_described_collector_half(const PluginDirectory& directory, const DescribedPlugin* manifest);
AnalysisHalf load_described_analysis_half(const PluginDirectory& directory, const DescribedPlugin* manifest);

// Plugin directories under `root`, sorted by name.
std::vector<PluginDirectory> find_plugin_directories(const std::filesystem::path& root,
                                                     PluginOrigin origin = PluginOrigin::Shipped);

// The directories of LUMEN_PLUGIN_PATH (`value` may be null). Empty entries
// are skipped rather than read as the current directory; a relative entry is
// refused (PluginError), for the same reason.
std::vector<std::filesystem::path> plugin_search_path(const char* value);

// A plugin directory a user named (relative to `base` when relative). Throws
// PluginError when it is not a directory holding both halves.
PluginDirectory explicit_plugin_directory(const std::filesystem::path& path, const std::filesystem::path& base,
                                          PluginOrigin origin = PluginOrigin::Explicit);

// Shipped plugins, then those of each search-path directory, then the
// explicit ones; a directory reached twice is listed once.
std::vector<PluginDirectory> discover_plugin_directories(const std::filesystem::path& shipped,
                                                         const std::vector<std::filesystem::path>& search_path,
                                                         const std::vector<PluginDirectory>& explicit_directories);

// Throws PluginError naming both files when two analysis halves have the same
// plugin name, data file or metric keyword.
void check_plugins_distinct(const std::vector<const AnalysisHalf*>& halves);

}  // namespace lumen::host
