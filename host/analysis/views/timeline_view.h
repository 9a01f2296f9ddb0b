// -timeline: each thread's selected events over time, a row per time bin
// with events (the cells' bins, thread_timeline.h): when it starts and
// ends, its events, the metrics' exclusive values, and the function that
// was the leaf of the most of the sort metric there.
#pragma once

#include "experiment_views.h"
#include "thread_timeline.h"

namespace lumen::analysis {

ViewTable timeline_view(const Experiments& experiments, const std::vector<TimelineBin>& bins, uint64_t bin_ns,
                        const ProgramStructure& structure, const MetricRegistry& registry, const ViewRequest& request);

}  // namespace lumen::analysis
