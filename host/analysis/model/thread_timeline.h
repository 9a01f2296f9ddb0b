// Each thread's selected events over time, summed from a session's cells
// (event_cells.h) with no file read again: per time bin of the cells, the
// events, their metric values (sampled parts placed, so a thread's bins
// add up to its -thread_list totals), and the function that was the leaf
// of the most of a chosen metric there (as the view mode shows stacks).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "event_cells.h"
#include "metric_engine.h"
#include "program_structure.h"
#include "view_mode.h"

namespace lumen::analysis {

struct TimelineBin {
  uint32_t experiment = 0;
  uint32_t thread_id = 0;
  uint32_t bin = 0;  // [bin * bin_ns, (bin + 1) * bin_ns) since the experiment's start
  uint64_t events = 0;
  Values values;
  FunctionId leaf = kTotalFunction;  // none: no event
};

// Orders the leaf functions of a bin: the one with the largest value leads.
using LeafRank = std::function<double(const Values& values)>;

// The bins with events, by experiment, thread and time; nothing when the
// cells cannot tell the selection (EventCells::for_each_selected).
std::optional<std::vector<TimelineBin>> thread_timeline(const EventCells& cells,
                                                        const std::vector<EventSelection>& selections,
                                                        const SampledParts& sampled_parts, StackShaper& shaper,
                                                        const LeafRank& rank);

}  // namespace lumen::analysis
