// What annotated source and disassembly share: the table's shape (metrics
// first, then the text), the metric that decides which rows are hot, and
// the marking.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "structure_views.h"
#include "view_table.h"

namespace lumen::analysis {

ViewTable annotation_table(const std::string& view, const ViewRequest& request, const MetricRegistry& registry);

// The sort key, or the first column's exclusive metric when sorted by name.
SortKey annotation_sort(const ViewRequest& request);

// The functions `name` stands for in -source and -disasm: those with data
// of that name (functions_named), else the functions known only as code
// inlined into others (with -inline off the profile has none), of which
// `which` chooses as functions_named's does.
std::vector<FunctionId> annotated_functions_named(const StackProfile& profile, const ProgramStructure& structure,
                                                  const std::string& name, size_t which);

// Marks "##" on rows [begin, begin + heat.size()) whose heat reaches
// `threshold_percent` of the largest (a negative heat is never hot).
void mark_hot_rows(ViewTable& table, size_t begin, const std::vector<double>& heat, double threshold_percent);

// The lines of a source file a recorded path led to, opened only if it is a
// regular file when opened (it may have become a FIFO since it was found);
// otherwise none, and a warning naming it.
std::vector<std::string> source_file_lines(const std::filesystem::path& file);

}  // namespace lumen::analysis
