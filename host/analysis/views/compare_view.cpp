#include "compare_view.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "compare_tables.h"
#include "metric_cells.h"

namespace lumen::analysis {

CompareMode parse_compare_mode(const std::string& word) {
  if (word == "off") return CompareMode::Off;
  if (word == "on") return CompareMode::Values;
  if (word == "delta") return CompareMode::Delta;
  if (word == "ratio") return CompareMode::Ratio;
  throw std::invalid_argument("unknown compare mode '" + word + "'; allowed: on, off, delta, ratio");
}

ViewTable compare_view(const std::vector<const StackProfile*>& profiles, const ProgramStructure& structure,
                       const MetricRegistry& registry, const ViewRequest& request, CompareMode mode) {
  ViewTable table;
  table.view = "compare";
  table.title = std::string("Functions of ") + std::to_string(profiles.size()) + " experiments" +
                (mode == CompareMode::Delta   ? ", the others as differences from the first"
                 : mode == CompareMode::Ratio ? ", the others as ratios to the first"
                                              : "") +
                ", sorted by metric: " + sort_title(request.sort, registry);
  const std::vector<ViewColumn> base = columns_of(request.metrics, registry);
  for (size_t k = 0; k < profiles.size(); ++k)
    for (const ViewColumn& column : base) table.columns.push_back(compared_column(column, k, mode));
  table.name_position = table.columns.size();

  std::set<FunctionId> ids;
  for (const StackProfile* p : profiles)
    for (const auto& [id, metrics] : p->functions().nodes())
      if (id != kTotalFunction) ids.insert(id);
  std::vector<FunctionId> order(ids.begin(), ids.end());
  const MetricEngine& first = profiles.front()->functions();
  std::stable_sort(order.begin(), order.end(), [&](FunctionId a, FunctionId b) {
    const std::string& an = structure.function(a).name;
    const std::string& bn = structure.function(b).name;
    if (!request.sort.by_name) {
      const auto* na = first.node(a);
      const auto* nb = first.node(b);
      const double va = na ? sort_value_of(request.sort, registry, &na->exclusive, &na->inclusive) : 0;
      const double vb = nb ? sort_value_of(request.sort, registry, &nb->exclusive, &nb->inclusive) : 0;
      if (va != vb) return (va > vb) != request.sort.reverse;
    }
    return an != bn ? an < bn : a < b;
  });
  if (request.limit && order.size() > *request.limit) order.resize(*request.limit);
  order.insert(order.begin(), kTotalFunction);

  for (const FunctionId id : order) {
    ViewRow row;
    row.name = structure.function(id).name;
    row.load_object = id == kTotalFunction ? "" : structure.object(structure.function(id).object).name;
    std::vector<double> reference;
    for (size_t k = 0; k < profiles.size(); ++k) {
      const MetricEngine& engine = profiles[k]->functions();
      const auto* node = engine.node(id);
      const std::vector<double> values = row_values(request.metrics, registry, node ? &node->exclusive : nullptr,
                                                    node ? &node->inclusive : nullptr, engine.total());
      if (k == 0) reference = values;
      for (size_t c = 0; c < values.size(); ++c) {
        double shown = values[c];
        if (k > 0 && mode == CompareMode::Delta) shown = values[c] - reference[c];
        if (k > 0 && mode == CompareMode::Ratio) shown = reference[c] == 0 ? 0.0 : values[c] / reference[c];
        row.values.push_back(shown);
      }
    }
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace lumen::analysis
