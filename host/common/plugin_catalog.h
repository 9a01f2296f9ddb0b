// The plugins installed with lumen: one directory each under the plugin
// directory, holding collector.so and analysis.so. Both halves are opened
// with Boost.DLL and their descriptors checked (factory present, ABI version,
// same name and data file) before anything relies on them.
#pragma once

#include <lumen/analysis_plugin.h>
#include <lumen/collector_plugin.h>

#include <boost/dll/shared_library.hpp>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace lumen::host {

struct PluginError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct CollectorHalf {
  std::filesystem::path path;
  boost::dll::shared_library library;
  const lumen_collector_descriptor* descriptor = nullptr;
};

struct AnalysisHalf {
  std::filesystem::path path;
  boost::dll::shared_library library;
  const lumen_analysis_descriptor* descriptor = nullptr;
};

// Throw PluginError naming the file when the factory is missing or the ABI
// version differs.
CollectorHalf load_collector_half(const std::filesystem::path& path);
AnalysisHalf load_analysis_half(const std::filesystem::path& path);

struct PluginDirectory {
  std::string name;  // the directory's name
  std::filesystem::path directory;
  std::filesystem::path collector_path() const { return directory / "collector.so"; }
  std::filesystem::path analysis_path() const { return directory / "analysis.so"; }
};

// Plugin directories under `root`, sorted by name.
std::vector<PluginDirectory> find_plugin_directories(const std::filesystem::path& root);

}  // namespace lumen::host
