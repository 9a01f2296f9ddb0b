// The hosts a session's experiments were recorded on (each header's host),
// numbered 1, 2, ... in name order: what -host_list shows, -host_select and
// the Hosts index object count by, and HOSTID reads.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "experiment.h"

namespace lumen::analysis {

struct ExperimentHosts {
  std::vector<std::string> names;       // host number - 1 -> name
  std::vector<int64_t> of_experiment;   // experiment index -> host number (0: the header names none)
};

ExperimentHosts experiment_hosts(const std::vector<std::unique_ptr<Experiment>>& experiments);

}  // namespace lumen::analysis
