#include "experiment.h"

#include <lumen/record_format.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "data_file_reader.h"
#include "data_limit.h"
#include "experiment_format.h"
#include "experiment_metadata.h"
#include "experiment_notices.h"
#include "format_error.h"
#include "install_layout.h"
#include "regular_file.h"

namespace lumen::analysis {

namespace fs = std::filesystem;

namespace {

std::vector<YAML::Node> read_log(const fs::path& experiment, std::vector<std::string>& warnings) {
  std::vector<YAML::Node> entries;
  const fs::path file = experiment / metadata::kLogFile;
  if (!fs::exists(fs::symlink_status(file))) return entries;
  std::istringstream in;
  try {
    in.str(read_regular_file(file, Symlinks::Refuse));
  } catch (const FormatError& e) {
    warnings.push_back(std::string(e.what()) + "; what the collector logged is unknown");
    return entries;
  }
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

}  // namespace

Experiment::Experiment(const fs::path& path, const AnalysisPlugins& plugins)
    : path_(path), header_(read_experiment_header(path)) {
  log_ = read_log(path, warnings_);
  for (std::string& notice : drop_implausible_header_values(header_)) warnings_.push_back(std::move(notice));
  // A parallel job's founder made by its ranks' collect holds no process
  // of its own (job_founder.h): only its ranks' sub-experiments.
  if (!header_["job"]) for (std::string& notice : missing_table_notices(path)) warnings_.push_back(std::move(notice));
  stacks_.load(path / LUMEN_STACKS_FILE);
  loadobjects_.load(path / LUMEN_LOADOBJECTS_FILE);
  loadobjects_.use_archive(path);
  if (is_regular_file(path / metadata::kVdsoImageFile, Symlinks::Refuse))
    loadobjects_.use_copy(metadata::kVdsoObject, path / metadata::kVdsoImageFile);
  samples_.load(path / LUMEN_SAMPLES_FILE);
  if (const YAML::Node planned = header_[metadata::header::kPlugins]; planned && planned.IsMap()) {
    for (const auto& entry : planned) {
      const std::string name = entry.first.as<std::string>();
      const std::string data_file = entry.second["data_file"].as<std::string>("");
      const host::AnalysisHalf* half = plugins.find(name);
      if (half == nullptr && !plugins.problem(name).empty()) {
        warnings_.push_back("plugin '" + name + "' cannot be used: " + plugins.problem(name) + "; the data file '" +
                            data_file + "' is left out.");
        continue;
      }
      if (half == nullptr) {
        std::string recorded;
        if (entry.second["directory"])
          recorded = " The experiment names " + entry.second["directory"].as<std::string>("?") +
                     ", which is not loaded: plugins come only from the installed directory, LUMEN_PLUGIN_PATH and"
                     " --plugin.";
        warnings_.push_back("no plugin '" + name + "' is installed to read the data file '" + data_file +
                            "'; it is left out (give its directory with er_print --plugin DIR, or the directory"
                            " holding " + name + "/ in LUMEN_PLUGIN_PATH)." + recorded);
        continue;
      }
      // A data file is a file of this experiment's own directory: a name
      // with a path in it ("../x", "/etc/x") would read outside it.
      if (data_file.empty() || data_file.find('/') != std::string::npos || data_file == "." || data_file == "..") {
        warnings_.push_back("the data file of plugin '" + name + "' is recorded as '" + data_file +
                            "', which is not a file name of this experiment; it is left out.");
        continue;
      }
      data_files_.push_back({name, data_file, half, entry.second["options"], {}, nullptr, UINT64_MAX, {}});
    }
  }
  for (auto file = data_files_.begin(); file != data_files_.end();) {
    if (survey(*file)) ++file;
    else file = data_files_.erase(file);
  }
  std::sort(threads_.begin(), threads_.end());
  threads_.erase(std::unique(threads_.begin(), threads_.end()), threads_.end());
  // The collector's own threads wrote blocks too, for the program's threads.
  for (const YAML::Node& entry : log_) {
    if (!entry.IsMap() || !entry["event"] || entry["event"].as<std::string>("") != metadata::log_event::kCollectorThread)
      continue;
    const auto tid = entry["tid"].as<uint32_t>(0);
    threads_.erase(std::remove(threads_.begin(), threads_.end(), tid), threads_.end());
  }
  if (const auto reached = data_limit_reached(header_, log_)) warnings_.push_back(data_limit_sentence(*reached));
  if (auto dropped = dropped_records_notice(header_, log_)) warnings_.push_back(std::move(*dropped));
  for (const YAML::Node& entry : log_)
    if (entry["event"] && entry["event"].as<std::string>() == metadata::log_event::kPluginFailed)
      warnings_.push_back("plugin '" + entry["plugin"].as<std::string>("?") + "' did not collect: " +
                          entry["message"].as<std::string>(""));
}

bool Experiment::survey(DataFile& file) {
  const fs::path data_path = path_ / file.name;
  // A data file the log says the runtime created was lost since, and its
  // views have nothing to show; one never created holds no events.
  if (!fs::exists(fs::symlink_status(data_path))) {
    if (!data_file_created(log_, file.name)) return true;
    warnings_.push_back(missing_data_file_notice(file.name, file.plugin));
    missing_data_.push_back(file.plugin);
    return false;
  }
  DataFileSurvey found;
  try {
    found = survey_data_file(data_path);
  } catch (const FormatError& e) {
    warnings_.push_back(std::string(e.what()) + "; the " + file.plugin + " data is left out");
    return false;
  }
  threads_.insert(threads_.end(), found.thread_ids.begin(), found.thread_ids.end());
  file.readable_bytes = found.declared_bytes;
  file.block_offsets = std::move(found.block_offsets);
  if (found.bad_block_at)
    warnings_.push_back(data_path.string() + " at offset " + std::to_string(*found.bad_block_at) +
                        ": not a lumen data block; the " + std::to_string(*found.bad_block_at) +
                        " bytes before it are read, the rest is left out");
  else if (found.ended_early())
    warnings_.push_back(data_path.string() + " ended early (cut short while written, or copied so): its blocks declare " +
                        std::to_string(found.declared_bytes) + " bytes, the file holds " +
                        std::to_string(found.file_bytes) + "; the records in those bytes are read");
  return true;
}

uint32_t Experiment::thread_number(uint32_t thread_id) const {
  const auto it = std::lower_bound(threads_.begin(), threads_.end(), thread_id);
  return it != threads_.end() && *it == thread_id ? static_cast<uint32_t>(it - threads_.begin() + 1) : 0;
}

void Experiment::place_on_clock_of(const Experiment& reference) {
  clock_shift_ns_ = 0;
  if (&reference == this) return;
  if (const auto shift = analysis::clock_shift_ns(header_, reference.header_)) {
    clock_shift_ns_ = *shift;
    return;
  }
  warnings_.push_back("recorded on " + header_["host"].as<std::string>("") + ", not on " +
                      reference.header_["host"].as<std::string>("") +
                      ", without the start times that place its clock: its times are its host's own");
}

int64_t Experiment::target_pid() const {
  const YAML::Node pid = header_["target_pid"];
  return pid && pid.IsScalar() ? pid.as<int64_t>(0) : 0;
}

std::string Experiment::command_text() const {
  std::string command;
  if (const YAML::Node words = header_["command"]; words && words.IsSequence())
    for (const auto& word : words)
      if (word.IsScalar()) command += (command.empty() ? "" : " ") + word.as<std::string>();
  return command;
}

}  // namespace lumen::analysis
