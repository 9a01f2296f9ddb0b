// er_print -compare on|delta|ratio: the functions view with one column group
// per experiment, side by side. "on" shows each experiment's values;
// "delta" shows the first experiment's values and, for the others, their
// difference from it; "ratio" shows the others as multiples of it (0 where
// the first has none).
#pragma once

#include <string>
#include <vector>

#include "profile.h"
#include "structure_views.h"
#include "view_table.h"

namespace lumen::analysis {

enum class CompareMode { Off, Values, Delta, Ratio };

// Throws std::invalid_argument for another word.
CompareMode parse_compare_mode(const std::string& word);

// `profiles[k]` holds experiment k's selected events; rows are ordered by
// the first experiment's sort value.
ViewTable compare_view(const std::vector<const Profile*>& profiles, const ProgramStructure& structure,
                       const MetricRegistry& registry, const ViewRequest& request, CompareMode mode);

}  // namespace lumen::analysis
