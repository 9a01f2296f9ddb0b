// er_print -compare on|delta|ratio for every view: the view built for each
// experiment alone, merged into one table with one column group per
// experiment. Rows are matched by what they stand for (name, load object,
// line, address, section; in a call tree the path from the root; callers
// and callees of a callers-callees row likewise), kept in the first
// experiment's order, a row only a later experiment has placed after the
// row it follows there. "delta" shows the first experiment's values and the
// others' differences from them; "ratio" the others as multiples of the
// first's (0 where the first has none), in columns labelled as ratios.
#pragma once

#include <vector>

#include "compare_view.h"
#include "view_table.h"

namespace lumen::analysis {

// `tables[k]`: the view of experiment k alone, all with the same columns.
ViewTable compare_tables(const std::vector<ViewTable>& tables, CompareMode mode);

// The columns of experiment k (from 0) of a comparison of `base` columns.
ViewColumn compared_column(ViewColumn column, size_t k, CompareMode mode);

}  // namespace lumen::analysis
