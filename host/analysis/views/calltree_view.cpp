#include "calltree_view.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "metric_cells.h"
#include "metric_sum.h"

namespace lumen::analysis {

namespace {

// Every distinct call path from the root, compactly: a node per path, its
// children chained from a first child through next siblings and found by
// one hash table keyed by (parent, function), its metric values in two
// flat arrays of metric_count per node. A profile of a million distinct
// paths (a long run, or a crafted stacks file) then takes some 230 bytes a
// path, its values included, where a hash table and two vectors each took
// 360.
class CallTree {
 public:
  explicit CallTree(size_t metric_count) : metrics_(metric_count) { add_node(kTotalFunction); }

  // The child of `parent` for a call of `function`, made when new.
  uint32_t child(uint32_t parent, FunctionId function) {
    const uint64_t key = (uint64_t{parent} << 32) | function;
    const auto [found, made] = index_.try_emplace(key, static_cast<uint32_t>(function_.size()));
    if (!made) return found->second;
    const uint32_t node = add_node(function);
    next_sibling_[node] = first_child_[parent];
    first_child_[parent] = node;
    return node;
  }

  void add_exclusive(uint32_t node, std::span<const int64_t> values) { add(exclusive_, node, values); }
  void add_inclusive(uint32_t node, std::span<const int64_t> values) { add(inclusive_, node, values); }
  Values exclusive(uint32_t node) const { return slice(exclusive_, node); }
  Values inclusive(uint32_t node) const { return slice(inclusive_, node); }
  FunctionId function(uint32_t node) const { return function_[node]; }

  template <typename Visit>
  void for_each_child(uint32_t node, Visit visit) const {
    for (uint32_t c = first_child_[node]; c != kNone; c = next_sibling_[c]) visit(c);
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  uint32_t add_node(FunctionId function) {
    function_.push_back(function);
    first_child_.push_back(kNone);
    next_sibling_.push_back(kNone);
    exclusive_.resize(exclusive_.size() + metrics_, 0);
    inclusive_.resize(inclusive_.size() + metrics_, 0);
    return static_cast<uint32_t>(function_.size() - 1);
  }
  void add(std::vector<int64_t>& flat, uint32_t node, std::span<const int64_t> values) {
    int64_t* into = flat.data() + size_t{node} * metrics_;
    add_values(into, values.data(), std::min(values.size(), metrics_));
  }
  Values slice(const std::vector<int64_t>& flat, uint32_t node) const {
    const auto first = flat.begin() + static_cast<std::ptrdiff_t>(size_t{node} * metrics_);
    return Values(first, first + static_cast<std::ptrdiff_t>(metrics_));
  }

  size_t metrics_;
  std::vector<FunctionId> function_;
  std::vector<uint32_t> first_child_;
  std::vector<uint32_t> next_sibling_;
  std::vector<int64_t> exclusive_;
  std::vector<int64_t> inclusive_;
  std::unordered_map<uint64_t, uint32_t> index_;
};

}  // namespace

ViewTable calltree_view(const StackProfile& profile, const ProgramStructure& structure, const MetricRegistry& registry,
                        const ViewRequest& request) {
  CallTree tree(profile.metric_count());
  tree.add_inclusive(0, profile.functions().total());
  for (size_t s = 0; s < profile.stacks().size(); ++s) {
    const auto frames = profile.frames(profile.stacks()[s]);
    const auto values = profile.values(s);
    uint32_t at = 0;
    for (size_t i = frames.size(); i-- > 0;) {
      at = tree.child(at, frames[i]);
      tree.add_inclusive(at, values);
    }
    tree.add_exclusive(at, values);
  }

  // Depth first; siblings by the sort metric's inclusive value (what a path
  // costs), or by name (then by function, so that equal names keep one
  // order); the title says which.
  SortKey key = request.sort;
  key.flavor = Flavor::Inclusive;
  ViewTable table;
  table.view = "calltree";
  table.title = "Call tree sorted by metric: " + sort_title(key, registry);
  table.columns = columns_of(request.metrics, registry);
  table.name_position = request.metrics.name_position;
  table.tree = true;
  const Values& total = profile.functions().total();
  std::vector<std::pair<uint32_t, int>> pending{{0, 0}};
  while (!pending.empty() && (!request.limit || table.rows.size() < *request.limit + 1)) {
    const auto [index, depth] = pending.back();
    pending.pop_back();
    const FunctionId function = tree.function(index);
    const Values exclusive = tree.exclusive(index), inclusive = tree.inclusive(index);
    ViewRow row;
    row.name = structure.function(function).name;
    row.load_object = function == kTotalFunction ? "" : structure.object(structure.function(function).object).name;
    row.values = row_values(request.metrics, registry, &exclusive, &inclusive, total);
    row.depth = depth;
    table.rows.push_back(std::move(row));
    struct Child {
      uint32_t node;
      double value;
    };
    std::vector<Child> children;
    tree.for_each_child(index, [&](uint32_t child) {
      const Values child_exclusive = tree.exclusive(child), child_inclusive = tree.inclusive(child);
      children.push_back({child, key.by_name ? 0.0 : sort_value_of(key, registry, &child_exclusive, &child_inclusive)});
    });
    std::sort(children.begin(), children.end(), [&](const Child& a, const Child& b) {
      if (!key.by_name && a.value != b.value) return (a.value > b.value) != key.reverse;
      const std::string &name_a = structure.function(tree.function(a.node)).name,
                        &name_b = structure.function(tree.function(b.node)).name;
      return name_a != name_b ? name_a < name_b : tree.function(a.node) < tree.function(b.node);
    });
    for (auto it = children.rbegin(); it != children.rend(); ++it) pending.emplace_back(it->node, depth + 1);
  }
  return table;
}

}  // namespace lumen::analysis
