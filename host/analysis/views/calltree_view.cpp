#include "calltree_view.h"

#include <algorithm>
#include <unordered_map>

#include "metric_cells.h"

namespace lumen::analysis {

namespace {

struct TreeNode {
  FunctionId function = kTotalFunction;
  Values exclusive;
  Values inclusive;
  std::unordered_map<FunctionId, size_t> children;  // function -> node index
};

void add(Values& into, std::span<const int64_t> values) {
  if (into.empty()) into.assign(values.size(), 0);
  for (size_t m = 0; m < values.size(); ++m) into[m] += values[m];
}

}  // namespace

ViewTable calltree_view(const StackProfile& profile, const ProgramStructure& structure, const MetricRegistry& registry,
                        const ViewRequest& request) {
  std::vector<TreeNode> nodes(1);
  nodes[0].inclusive = profile.functions().total();
  nodes[0].exclusive.assign(profile.metric_count(), 0);
  for (size_t s = 0; s < profile.stacks().size(); ++s) {
    const auto frames = profile.frames(profile.stacks()[s]);
    const auto values = profile.values(s);
    size_t at = 0;
    for (size_t i = frames.size(); i-- > 0;) {
      const auto found = nodes[at].children.find(frames[i]);
      size_t next;
      if (found == nodes[at].children.end()) {
        next = nodes.size();
        nodes[at].children.emplace(frames[i], next);
        nodes.push_back({frames[i], {}, {}, {}});
      } else {
        next = found->second;
      }
      at = next;
      add(nodes[at].inclusive, values);
    }
    add(nodes[at].exclusive, values);
  }

  ViewTable table;
  table.view = "calltree";
  table.title = "Call tree sorted by metric: " + sort_title(request.sort, registry);
  table.columns = columns_of(request.metrics, registry);
  table.name_position = request.metrics.name_position;
  table.tree = true;
  const Values& total = profile.functions().total();
  // Depth first; siblings by the sort metric's inclusive value (what a path
  // costs), or by name.
  SortKey key = request.sort;
  key.flavor = Flavor::Inclusive;
  std::vector<std::pair<size_t, int>> pending{{0, 0}};
  while (!pending.empty() && (!request.limit || table.rows.size() < *request.limit + 1)) {
    const auto [index, depth] = pending.back();
    pending.pop_back();
    const TreeNode& node = nodes[index];
    ViewRow row;
    row.name = structure.function(node.function).name;
    row.load_object = node.function == kTotalFunction ? "" : structure.object(structure.function(node.function).object).name;
    row.values = row_values(request.metrics, registry, &node.exclusive, &node.inclusive, total);
    row.depth = depth;
    table.rows.push_back(std::move(row));
    std::vector<size_t> children;
    for (const auto& [function, child] : node.children) children.push_back(child);
    std::sort(children.begin(), children.end(), [&](size_t a, size_t b) {
      const TreeNode &na = nodes[a], &nb = nodes[b];
      if (!key.by_name) {
        const double va = sort_value_of(key, registry, &na.exclusive, &na.inclusive);
        const double vb = sort_value_of(key, registry, &nb.exclusive, &nb.inclusive);
        if (va != vb) return (va > vb) != key.reverse;
      }
      return structure.function(na.function).name < structure.function(nb.function).name;
    });
    for (auto it = children.rbegin(); it != children.rend(); ++it) pending.emplace_back(*it, depth + 1);
  }
  return table;
}

}  // namespace lumen::analysis
