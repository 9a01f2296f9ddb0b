#include "experiment.h"

#include <lumen/record_format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "data_file_reader.h"
#include "format_error.h"
#include "install_layout.h"
#include "interval_split.h"

namespace lumen::analysis {

namespace fs = std::filesystem;

AnalysisPlugins AnalysisPlugins::load(const fs::path& plugin_root, const std::vector<fs::path>& search_path) {
  AnalysisPlugins plugins;
  for (const host::PluginDirectory& dir : host::discover_plugin_directories(plugin_root, search_path, {}))
    plugins.add(std::make_shared<host::AnalysisHalf>(host::load_analysis_half(dir.analysis_path())));
  return plugins;
}

AnalysisPlugins AnalysisPlugins::for_command_line(const std::vector<std::string>& arguments) {
  AnalysisPlugins plugins = load(host::plugin_directory(), host::plugin_search_path(std::getenv("LUMEN_PLUGIN_PATH")));
  for (const std::string& argument : arguments)
    if (!argument.empty() && argument[0] != '-' && fs::exists(fs::path(argument) / "header.yaml"))
      plugins.add_recorded(argument);
  return plugins;
}

void AnalysisPlugins::add(std::shared_ptr<host::AnalysisHalf> half) {
  std::vector<const host::AnalysisHalf*> all{half.get()};
  for (const auto& [name, known] : halves_) all.push_back(known.get());
  host::check_plugins_distinct(all);
  halves_[half->descriptor->name] = std::move(half);
}

void AnalysisPlugins::add_recorded(const fs::path& experiment) {
  YAML::Node header;
  try {
    header = YAML::LoadFile((experiment / "header.yaml").string());
  } catch (const YAML::Exception&) {
    return;  // not an experiment: opening it says so
  }
  const YAML::Node planned = header["plugins"];
  if (!planned || !planned.IsMap()) return;
  for (const auto& entry : planned) {
    const std::string name = entry.first.as<std::string>();
    if (!entry.second.IsMap() || !entry.second["directory"] || halves_.count(name) != 0) continue;
    const fs::path analysis = fs::path(entry.second["directory"].as<std::string>()) / "analysis.so";
    if (!fs::exists(analysis)) continue;
    auto half = std::make_shared<host::AnalysisHalf>(host::load_analysis_half(analysis));
    if (name != half->descriptor->name)
      throw host::PluginError((experiment / "header.yaml").string() + " records plugin '" + name + "' in " +
                              analysis.parent_path().string() + ", but " + analysis.string() + " is plugin '" +
                              half->descriptor->name + "'");
    add(std::move(half));
  }
}

const host::AnalysisHalf* AnalysisPlugins::find(const std::string& plugin) const {
  const auto it = halves_.find(plugin);
  return it == halves_.end() ? nullptr : it->second.get();
}

namespace {

YAML::Node read_header(const fs::path& experiment) {
  const fs::path file = experiment / "header.yaml";
  if (!fs::is_directory(experiment)) throw FormatError(experiment.string() + ": no such experiment directory");
  if (!fs::exists(file)) throw FormatError(experiment.string() + ": not an experiment (it has no header.yaml)");
  YAML::Node header;
  try {
    header = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& e) {
    throw FormatError(file.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!header.IsMap() || !header["format"] || !header["format"]["major"])
    throw FormatError(file.string() + ": not an experiment header (no format version)");
  const unsigned major = header["format"]["major"].as<unsigned>();
  if (major > LUMEN_FORMAT_MAJOR)
    throw FormatError(file.string() + ": experiment format " + std::to_string(major) + "." +
                      header["format"]["minor"].as<std::string>("0") + " needs a newer lumen; this one reads format " +
                      std::to_string(LUMEN_FORMAT_MAJOR) + ".x");
  return header;
}

std::vector<YAML::Node> read_log(const fs::path& experiment) {
  std::vector<YAML::Node> entries;
  std::ifstream in(experiment / "collector.log");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("- ", 0) != 0) continue;
    try {
      entries.push_back(YAML::Load(line.substr(2)));
    } catch (const YAML::Exception&) {
      // A line cut short by a crash: what came before it still counts.
    }
  }
  return entries;
}

// The plugin's metrics for this experiment: the descriptor's, or what its
// configure declares from the experiment's facts (analysis_plugin.h).
lumen_configuration configure_plugin(const host::AnalysisHalf& half, const fs::path& experiment,
                                     const YAML::Node& header, const YAML::Node& options) {
  const lumen_analysis_descriptor& d = *half.descriptor;
  lumen_configuration configuration{d.metrics, d.metric_count, d.derived_metrics, d.derived_metric_count, nullptr};
  if (d.configure == nullptr) return configuration;
  std::vector<std::pair<std::string, std::string>> texts;
  if (options && options.IsMap())
    for (const auto& o : options) texts.emplace_back(o.first.as<std::string>(), o.second.as<std::string>());
  std::vector<lumen_option_value> values;
  for (const auto& [key, value] : texts) values.push_back({key.c_str(), value.c_str()});
  const lumen_experiment_facts facts{experiment.c_str(),
                                     header["clock_mhz"].as<double>(0),
                                     header["cpus"].as<uint32_t>(0),
                                     header["start_wall_ns"].as<uint64_t>(0),
                                     header["start_monotonic_ns"].as<uint64_t>(0),
                                     values.data(),
                                     values.size()};
  char error[512] = "";
  if (d.configure(&facts, &configuration, error, sizeof error) != 0) throw FormatError(error);
  return configuration;
}

}  // namespace

Experiment::Experiment(const fs::path& path, const AnalysisPlugins& plugins, MetricRegistry& registry)
    : path_(path), header_(read_header(path)), log_(read_log(path)) {
  stacks_.load(path / LUMEN_STACKS_FILE);
  loadobjects_.load(path / LUMEN_LOADOBJECTS_FILE);
  loadobjects_.use_archive(path);
  samples_.load(path / LUMEN_SAMPLES_FILE);
  if (const YAML::Node planned = header_["plugins"]; planned && planned.IsMap()) {
    for (const auto& entry : planned) {
      const std::string name = entry.first.as<std::string>();
      const std::string data_file = entry.second["data_file"].as<std::string>("");
      const host::AnalysisHalf* half = plugins.find(name);
      if (half == nullptr) {
        warnings_.push_back("no installed plugin '" + name + "' reads the data file '" + data_file +
                            "'; it is skipped (put the directory holding " + name +
                            "/analysis.so in LUMEN_PLUGIN_PATH)");
        continue;
      }
      const lumen_configuration configuration = configure_plugin(*half, path, header_, entry.second["options"]);
      DataFile file{name, data_file, half, {}, configuration.decoder_context};
      try {
        file.metric_index = registry.add_plugin(name, configuration.metrics, configuration.metric_count);
      } catch (const std::invalid_argument& e) {
        throw FormatError(path.string() + ": " + e.what());
      }
      register_split_metrics(*half, file.metric_index, registry);
      if (const std::string problem = registry.add_derived(name, configuration.derived_metrics,
                                                           configuration.derived_metric_count);
          !problem.empty())
        throw FormatError(problem);
      data_files_.push_back(std::move(file));
    }
  }
  for (const DataFile& file : data_files_)
    if (fs::exists(path / file.name))
      for (const uint32_t tid : block_thread_ids(path / file.name)) threads_.push_back(tid);
  std::sort(threads_.begin(), threads_.end());
  threads_.erase(std::unique(threads_.begin(), threads_.end()), threads_.end());
  for (const YAML::Node& entry : log_)
    if (entry["event"] && entry["event"].as<std::string>() == "plugin_failed")
      warnings_.push_back("plugin '" + entry["plugin"].as<std::string>("?") + "' did not collect: " +
                          entry["message"].as<std::string>(""));
}

uint32_t Experiment::thread_number(uint32_t thread_id) const {
  const auto it = std::lower_bound(threads_.begin(), threads_.end(), thread_id);
  return it != threads_.end() && *it == thread_id ? static_cast<uint32_t>(it - threads_.begin() + 1) : 0;
}

void Experiment::for_each_event(const EventVisitor& visit) const {
  for (const DataFile& file : data_files_) for_each_event_in(file, visit);
}

void Experiment::for_each_event_in(const DataFile& file, const EventVisitor& visit) const {
  const fs::path data_path = path_ / file.name;
  if (!fs::exists(data_path)) return;
  struct Context {
    const DataFile* file;
    const EventVisitor* visit;
    std::vector<std::string>* artificial;
  } context{&file, &visit, &artificial_functions_};
  const lumen_event_sink sink{&context,
                              [](void* opaque, const lumen_event* event) {
                                auto* c = static_cast<Context*>(opaque);
                                (*c->visit)(*c->file, *event);
                              },
                              [](void* opaque, const char* function) -> uint64_t {
                                auto& names = *static_cast<Context*>(opaque)->artificial;
                                auto found = std::find(names.begin(), names.end(), function);
                                if (found == names.end()) found = names.insert(names.end(), function);
                                return kArtificialStackBase + static_cast<uint64_t>(found - names.begin());
                              }};
  const lumen_analysis_descriptor& d = *file.half->descriptor;
  void* state = d.decoder_begin ? d.decoder_begin(file.decoder_context) : file.decoder_context;
  char error[256] = "";
  try {
    read_data_file(data_path, [&](const RawRecord& record) {
      if (d.decode(state, record.kind, record.payload, record.payload_bytes, &sink, error, sizeof error) != 0)
        throw FormatError(data_path.string(), record.offset, error);
    });
  } catch (...) {
    if (d.decoder_end) d.decoder_end(state, nullptr, error, sizeof error);
    throw;
  }
  if (d.decoder_end && d.decoder_end(state, &sink, error, sizeof error) != 0)
    throw FormatError(data_path.string() + ": " + error);
}

}  // namespace lumen::analysis
