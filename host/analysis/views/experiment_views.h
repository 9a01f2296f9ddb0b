// Views of what was collected rather than of program structure:
//   -object_list   the load objects each experiment mapped, and when;
//   -thread_list   each thread with its events and metric totals;
//   -samples       each sample (interval between sample points) with the
//                  differences of the process figures across it;
//   -overview      per experiment: duration, samples, and the sample figures
//                  summed, beside the metric totals;
//   -statistics    per experiment and in total: events, unique stacks,
//                  threads, data files, load objects, and the process
//                  figures (CPU, faults, switches, I/O) from start to end.
// Both compare the <Total> of user, system and total CPU time with the
// process's own rusage figures (as a percentage of them).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "stack_profile.h"
#include "structure_views.h"
#include "document.h"

namespace lumen::analysis {

using Experiments = std::vector<std::unique_ptr<Experiment>>;

// Nanoseconds as seconds to the millisecond ("1.250").
std::string seconds_text(uint64_t ns);

ViewTable object_list_view(const Experiments& experiments, const StackProfile& profile, const ProgramStructure& structure);

ViewTable thread_list_view(const Experiments& experiments, const StackProfile& profile, const MetricRegistry& registry,
                           const ViewRequest& request);

ViewTable samples_view(const Experiments& experiments);

Document overview(const Experiments& experiments, const StackProfile& profile, const MetricRegistry& registry);

Document statistics(const Experiments& experiments, const StackProfile& profile, const MetricRegistry& registry);

}  // namespace lumen::analysis
