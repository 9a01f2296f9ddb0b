// The experiment format version this lumen reads (LUMEN_FORMAT_MAJOR in
// lumen/record_format.h), checked wherever an experiment states its
// version: header.yaml's `format` and every data block's header. Any other
// major version, older or newer, is refused: its layouts are not the ones
// this lumen knows. A newer minor version of the same major is read.
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <optional>
#include <string>

namespace lumen::analysis {

// Why data of format `major`.`minor` cannot be read ("written in experiment
// format 2.0; this lumen reads format 1.x: a newer lumen is needed"), or
// nothing when this lumen reads it.
std::optional<std::string> format_refusal(unsigned major, unsigned minor);

// EXPERIMENT/header.yaml, parsed, when it states a format this lumen reads;
// a FormatError naming the file otherwise.
YAML::Node read_experiment_header(const std::filesystem::path& experiment);

}  // namespace lumen::analysis
