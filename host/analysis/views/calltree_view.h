// er_print -calltree: the dynamic call tree, from <Total> down, each node a
// call path. A node's inclusive value is everything under its path; its
// exclusive value is what stopped at it. Children are ordered by the sort
// metric; -limit bounds the rows.
#pragma once

#include "profile.h"
#include "structure_views.h"
#include "view_table.h"

namespace lumen::analysis {

ViewTable calltree_view(const Profile& profile, const ProgramStructure& structure, const MetricRegistry& registry,
                        const ViewRequest& request);

}  // namespace lumen::analysis
