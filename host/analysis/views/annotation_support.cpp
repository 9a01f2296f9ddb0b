#include "annotation_support.h"

#include <algorithm>
#include <iostream>
#include <sstream>

#include "format_error.h"
#include "metric_cells.h"
#include "regular_file.h"

namespace lumen::analysis {

ViewTable annotation_table(const std::string& view, const ViewRequest& request, const MetricRegistry& registry) {
  ViewTable table;
  table.view = view;
  table.title = (view == "source" ? "Annotated source" : "Annotated disassembly") + std::string(", hot by: ") +
                sort_title(annotation_sort(request), registry);
  table.columns = columns_of(request.metrics, registry);
  table.name_position = table.columns.size();
  return table;
}

SortKey annotation_sort(const ViewRequest& request) {
  SortKey key = request.sort;
  if (key.by_name) {
    key.by_name = false;
    key.flavor = Flavor::Exclusive;
    key.metric = request.metrics.columns.empty() ? 0 : request.metrics.columns.front().metric;
  }
  if (key.flavor == Flavor::Attributed) key.flavor = Flavor::Exclusive;
  return key;
}

std::vector<FunctionId> annotated_functions_named(const StackProfile& profile, const ProgramStructure& structure,
                                                  const std::string& name, size_t which) {
  std::vector<FunctionId> found = functions_named(profile, structure, name);
  if (found.empty())
    for (FunctionId id = kTruncatedFunction + 1; id < structure.function_count(); ++id)
      if (structure.function(id).inlined_only && is_named(structure.function(id), name)) found.push_back(id);
  return nth_named(std::move(found), name, which);
}

void mark_hot_rows(ViewTable& table, size_t begin, const std::vector<double>& heat, double threshold_percent) {
  const double hottest = heat.empty() ? 0 : *std::max_element(heat.begin(), heat.end());
  if (hottest <= 0) return;
  for (size_t i = 0; i < heat.size(); ++i)
    if (heat[i] > 0 && heat[i] * 100.0 >= threshold_percent * hottest)
      table.rows[begin + i].marker = "## ";
}

std::vector<std::string> source_file_lines(const std::filesystem::path& file) {
  std::vector<std::string> lines;
  try {
    std::istringstream in(read_regular_file(file, Symlinks::Follow));
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  } catch (const FormatError& e) {
    std::cerr << "er_print: warning: " << e.what() << "\n";
  }
  return lines;
}

}  // namespace lumen::analysis
