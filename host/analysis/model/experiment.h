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
#include "sample_table.h"
#include "stack_store.h"

namespace lumen::analysis {

// The analysis halves er_print knows, by plugin name: the shipped ones, those
// of the LUMEN_PLUGIN_PATH directories, and those experiments name by path.
class AnalysisPlugins {
 public:
  // Throws PluginError when a plugin is broken or two claim one name, data
  // file or metric keyword.
  static AnalysisPlugins load(const std::filesystem::path& plugin_root,
                              const std::vector<std::filesystem::path>& search_path = {});
  // What er_print loads for its command line: the shipped plugins, those of
  // LUMEN_PLUGIN_PATH, and those recorded by every argument that is an
  // experiment directory (so their views are commands before it is opened).
  static AnalysisPlugins for_command_line(const std::vector<std::string>& arguments);
  // Adds the halves of plugins an experiment recorded by directory (those
  // collect loaded from a path of the user's) and that are not known by
  // name; a directory that is gone is left to the experiment's warning.
  void add_recorded(const std::filesystem::path& experiment);
  const host::AnalysisHalf* find(const std::string& plugin) const;
  // Every installed half, by plugin name (for plugin-defined views).
  const std::map<std::string, std::shared_ptr<host::AnalysisHalf>>& all() const { return halves_; }

 private:
  void add(std::shared_ptr<host::AnalysisHalf> half);
  std::map<std::string, std::shared_ptr<host::AnalysisHalf>> halves_;
};

// Stack ids a decoder obtained from lumen_event_sink.artificial_stack: far
// above any recorded stack id (those are bounded by the stacks file's size).
inline constexpr uint64_t kArtificialStackBase = 0xffffffff00000000ull;
inline bool is_artificial_stack(uint64_t stack_id) {
  return stack_id >= kArtificialStackBase && stack_id != UINT64_MAX;
}

struct DataFile {
  std::string plugin;
  std::string name;
  const host::AnalysisHalf* half = nullptr;
  // The registry index of each value of this file's events: the metrics of
  // the experiment's configuration of the plugin, in order.
  std::vector<size_t> metric_index;
  void* decoder_context = nullptr;  // lumen_configuration.decoder_context
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
  const SampleTable& samples() const { return samples_; }
  // The kernel ids of the threads that wrote data, ascending; a thread's
  // number (as -thread_select and -thread_list give it) is its index + 1.
  const std::vector<uint32_t>& threads() const { return threads_; }
  uint32_t thread_number(uint32_t thread_id) const;
  // Collection start on the events' clock (the first sample point; else 0).
  uint64_t start_ns() const { return samples_.start_ns(); }

  // The artificial function an artificial stack id stands for.
  const std::string& artificial_function(uint64_t stack_id) const {
    return artificial_functions_.at(stack_id - kArtificialStackBase);
  }

  using EventVisitor = std::function<void(const DataFile&, const lumen_event&)>;
  // Decodes every event of every data file, in file order.
  void for_each_event(const EventVisitor& visit) const;
  // Decodes every event of one of data_files(), in file order.
  void for_each_event_in(const DataFile& file, const EventVisitor& visit) const;

 private:
  std::filesystem::path path_;
  YAML::Node header_;
  std::vector<YAML::Node> log_;
  StackStore stacks_;
  LoadObjectMap loadobjects_;
  std::vector<DataFile> data_files_;
  std::vector<std::string> warnings_;
  SampleTable samples_;
  std::vector<uint32_t> threads_;
  mutable std::vector<std::string> artificial_functions_;  // by id - kArtificialStackBase
};

}  // namespace lumen::analysis
