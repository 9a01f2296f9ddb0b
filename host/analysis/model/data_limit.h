// What collect -L cost an experiment: whether recording stopped at the data
// limit, and when. Every figure of such an experiment is partial, so the
// header and every view say so.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace lumen::analysis {

struct DataLimitReached {
  uint64_t limit_bytes = 0;             // 0: not recorded
  std::optional<double> after_seconds;  // since collection start, when the log says
};

// From the header (size_limit_reached) and the collector's log (the
// size_limit_reached event with its time); nullopt when the limit was not
// reached or none was set.
std::optional<DataLimitReached> data_limit_reached(const YAML::Node& header, const std::vector<YAML::Node>& log);

// "recording stopped 1.250 s after collection start: the data files reached
// collect -L's limit of 1 MB; ..." for the header and the views.
std::string data_limit_sentence(const DataLimitReached& reached);

}  // namespace lumen::analysis
