#include "export_frames.h"

#include "experiment_metadata.h"

namespace lumen::exporting {

const std::string& function_name(const ExportInput& input, analysis::FunctionId function) {
  return input.structure.function(function).name;
}

std::optional<analysis::SourceLine> function_source(const ExportInput& input, analysis::FunctionId function) {
  const analysis::Function& f = input.structure.function(function);
  if (f.object == analysis::kNoObject || f.start == 0) return std::nullopt;
  const analysis::ObjectSymbols* symbols = input.structure.symbols(f.object);
  if (symbols == nullptr) return std::nullopt;
  return symbols->source_line(f.start);
}

const char* unit_word(lumen_metric_unit unit) {
  switch (unit) {
    case LUMEN_UNIT_NANOSECONDS: return "nanoseconds";
    case LUMEN_UNIT_BYTES: return "bytes";
    default: return "count";
  }
}

uint64_t process_id(const analysis::Experiment& experiment, size_t experiment_index) {
  const YAML::Node pid = experiment.header()[metadata::header::kTargetPid];
  if (pid && pid.IsScalar()) {
    try {
      return pid.as<uint64_t>();
    } catch (const YAML::Exception&) {
    }
  }
  return experiment_index + 1;
}

std::optional<int64_t> mpi_rank(const analysis::Experiment& experiment) {
  const YAML::Node rank = experiment.header()[metadata::header::kRank];
  if (!rank || !rank.IsScalar()) return std::nullopt;
  try {
    return rank.as<int64_t>();
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

std::string process_label(const analysis::Experiment& experiment) {
  std::string command;
  const YAML::Node node = experiment.header()[metadata::header::kCommand];
  if (node && node.IsScalar()) command = node.as<std::string>();
  else if (node && node.IsSequence())
    for (const auto& word : node) command += (command.empty() ? "" : " ") + word.as<std::string>("");
  if (command.empty()) command = experiment.path().filename().string();
  const auto rank = mpi_rank(experiment);
  return rank ? "rank " + std::to_string(*rank) + ": " + command : command;
}

}  // namespace lumen::exporting
