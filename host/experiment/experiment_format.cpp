#include "experiment_format.h"

#include <algorithm>

#include <lumen/record_format.h>

#include "experiment_metadata.h"
#include "format_error.h"
#include "regular_file.h"

namespace lumen::analysis {

namespace fs = std::filesystem;

std::optional<std::string> format_refusal(unsigned major, unsigned minor) {
  if (major == LUMEN_FORMAT_MAJOR) return std::nullopt;
  return "written in experiment format " + std::to_string(major) + "." + std::to_string(minor) +
         "; this lumen reads format " + std::to_string(LUMEN_FORMAT_MAJOR) + ".x" +
         (major > LUMEN_FORMAT_MAJOR ? ": a newer lumen is needed" : " only");
}

YAML::Node read_experiment_header(const fs::path& experiment) {
  const fs::path file = experiment / metadata::kHeaderFile;
  if (!fs::is_directory(experiment)) throw FormatError(experiment.string() + ": no such experiment directory");
  if (!fs::exists(fs::symlink_status(file)))
    throw FormatError(experiment.string() + ": not an experiment (it has no header.yaml)");
  YAML::Node header;
  try {
    header = YAML::Load(read_regular_file(file, Symlinks::Refuse));
  } catch (const YAML::Exception& e) {
    throw FormatError(file.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  const YAML::Node format = header.IsMap() ? header[metadata::header::kFormat] : YAML::Node();
  if (!format.IsMap() || !format["major"])
    throw FormatError(file.string() + ": not an experiment header (no format version)");
  unsigned major = 0, minor = 0;
  if (!YAML::convert<unsigned>::decode(format["major"], major) ||
      (format["minor"] && !YAML::convert<unsigned>::decode(format["minor"], minor)))
    throw FormatError(file.string() + ": the format version is not a pair of numbers");
  if (const auto refusal = format_refusal(major, minor)) throw FormatError(file.string() + ": " + *refusal);
  return header;
}

std::optional<int64_t> clock_shift_ns(const YAML::Node& header, const YAML::Node& reference) {
  const std::string host = header["host"].as<std::string>(""), reference_host = reference["host"].as<std::string>("");
  if (host.empty() || host == reference_host) return 0;
  const auto offset = [](const YAML::Node& h) -> std::optional<int64_t> {
    const long long wall = h["start_wall_ns"].as<long long>(0), monotonic = h["start_monotonic_ns"].as<long long>(0);
    if (wall <= 0 || monotonic <= 0) return std::nullopt;
    return static_cast<int64_t>(wall - monotonic);
  };
  const auto own = offset(header), theirs = offset(reference);
  if (!own || !theirs) return std::nullopt;
  return *own - *theirs;
}

fs::path clock_reference(const fs::path& founder, const YAML::Node& founder_header,
                         const std::vector<fs::path>& descendants) {
  if (!founder_header["job"] || descendants.empty()) return founder;
  return *std::min_element(descendants.begin(), descendants.end());
}

}  // namespace lumen::analysis
