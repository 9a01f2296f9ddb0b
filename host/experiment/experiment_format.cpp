#include "experiment_format.h"

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

}  // namespace lumen::analysis
