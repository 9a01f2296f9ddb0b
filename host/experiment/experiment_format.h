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
#include <vector>

namespace lumen::analysis {

// Why data of format `major`.`minor` cannot be read ("written in experiment
// format 2.0; this lumen reads format 1.x: a newer lumen is needed"), or
// nothing when this lumen reads it.
std::optional<std::string> format_refusal(unsigned major, unsigned minor);

// EXPERIMENT/header.yaml, parsed, when it states a format this lumen reads;
// a FormatError naming the file otherwise.
YAML::Node read_experiment_header(const std::filesystem::path& experiment);

// Nanoseconds to add to the times of the experiment with `header` (its
// host's CLOCK_MONOTONIC) to place them on the clock of the one with
// `reference`: 0 on the same host; across hosts, the difference of their
// wall clocks' offsets from their monotonic ones, each read at the start
// of its recording. nullopt when the hosts differ and a header lacks those
// start times.
std::optional<int64_t> clock_shift_ns(const YAML::Node& header, const YAML::Node& reference);

// The experiment a parallel job's others are placed on the clock of: the
// founder, or for a founder its ranks made (no process of its own: its
// header names the job), the first of `descendants` (in name order).
std::filesystem::path clock_reference(const std::filesystem::path& founder, const YAML::Node& founder_header,
                                      const std::vector<std::filesystem::path>& descendants);

}  // namespace lumen::analysis
