// header.yaml: what the experiment was (target, host, plan, comments) and,
// once the target has ended, how it ended. Written by collect, read by
// er_print -header.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "collection_plan.h"

namespace lumen::collect {

struct TargetEnd {
  bool exited = false;
  int exit_code = 0;
  int signal = 0;
  long long end_wall_ns = 0;
  bool size_limit_reached = false;  // some process of the experiment hit -L
};

struct ExperimentHeader {
  std::vector<std::string> command;
  std::vector<std::string> comments;
  CollectionPlan plan;
  long long start_wall_ns = 0;
  long long start_monotonic_ns = 0;
  int target_pid = 0;
};

// Writes atomically (a temporary file renamed over the old one).
void write_header(const std::filesystem::path& experiment, const ExperimentHeader& header, const TargetEnd* end);

}  // namespace lumen::collect
