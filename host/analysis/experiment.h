// An experiment directory opened for analysis: its header and log, stack
// table, load-object map, and each data file paired with the analysis half
// of the plugin that wrote it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "loadobject_map.h"
#include "metric_registry.h"
#include "plugin_catalog.h"
#include "stack_store.h"

namespace lumen::analysis {

// The analysis halves installed with lumen, by plugin name.
class AnalysisPlugins {
 public:
  static AnalysisPlugins load(const std::filesystem::path& plugin_root);
  const host::AnalysisHalf* find(const std::string& plugin) const;
  // Every installed half, by plugin name (for plugin-defined views).
  const std::map<std::string, std::shared_ptr<host::AnalysisHalf>>& all() const { return halves_; }

 private:
  std::map<std::string, std::shared_ptr<host::AnalysisHalf>> halves_;
};

struct DataFile {
  std::string plugin;
  std::string name;
  const host::AnalysisHalf* half = nullptr;
  size_t metric_base = 0;  // index of the plugin's first metric in the registry
};

class Experiment {
 public:
  // Throws FormatError when `path` is not a readable experiment.
  Experiment(const std::filesystem::path& path, const AnalysisPlugins& plugins, MetricRegistry& registry);

  const std::filesystem::path& path() const { return path_; }
  const YAML::Node& header() const { return header_; }
  const std::vector<YAML::Node>& log() const { return log_; }
  const StackStore& stacks() const { return stacks_; }
  const LoadObjectMap& loadobjects() const { return loadobjects_; }
  const std::vector<DataFile>& data_files() const { return data_files_; }
  const std::vector<std::string>& warnings() const { return warnings_; }

  // Decodes every event of every data file, in file order.
  void for_each_event(const std::function<void(const DataFile&, const lumen_event&)>& visit) const;

 private:
  std::filesystem::path path_;
  YAML::Node header_;
  std::vector<YAML::Node> log_;
  StackStore stacks_;
  LoadObjectMap loadobjects_;
  std::vector<DataFile> data_files_;
  std::vector<std::string> warnings_;
};

}  // namespace lumen::analysis
