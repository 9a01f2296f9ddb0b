#include "fragment_view.h"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>

#include "metric_cells.h"
#include "metric_sum.h"

namespace lumen::analysis {

namespace {

// "f #2" -> ("f", 2); a name without " #N" -> (name, 0). Function names
// hold no '#' (C, C++, Fortran), so the suffix is never part of one.
std::pair<std::string, size_t> split_numbered(const std::string& entry) {
  const size_t hash = entry.rfind(" #");
  if (hash == std::string::npos || hash + 2 >= entry.size()) return {entry, 0};
  size_t which = 0;
  for (size_t k = hash + 2; k < entry.size(); ++k) {
    if (entry[k] < '0' || entry[k] > '9') return {entry, 0};
    which = which * 10 + static_cast<size_t>(entry[k] - '0');
  }
  return {entry.substr(0, hash), which};
}

void add(Values& into, std::span<const int64_t> values) {
  if (into.empty()) into.assign(values.size(), 0);
  add_values(into.data(), values.data(), values.size());
}

ViewTable section(const std::string& title, const MetricRegistry& registry, const ViewRequest& request) {
  ViewTable table;
  table.view = "stack_fragment";
  table.title = title;
  table.columns = columns_of(request.metrics, registry);
  table.name_position = request.metrics.name_position;
  return table;
}

void add_rows(ViewTable& table, const std::map<FunctionId, Values>& rows, const ProgramStructure& structure,
              const MetricRegistry& registry, const ViewRequest& request, const Values& total) {
  std::vector<std::pair<FunctionId, const Values*>> order;
  for (const auto& [f, values] : rows) order.emplace_back(f, &values);
  std::stable_sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    if (request.sort.by_name) return structure.function(a.first).name < structure.function(b.first).name;
    return (sort_value_of(request.sort, registry, a.second, a.second) >
            sort_value_of(request.sort, registry, b.second, b.second)) != request.sort.reverse;
  });
  for (const auto& [f, values] : order) {
    const Function& function = structure.function(f);
    ViewRow row;
    row.name = function.name;
    row.load_object = structure.object(function.object).name;
    row.values = row_values(request.metrics, registry, values, values, total);
    table.rows.push_back(std::move(row));
  }
}

}  // namespace

std::string numbered_function(const std::string& name, size_t which) {
  return which == 0 ? name : name + " #" + std::to_string(which);
}

Document stack_fragment_view(const StackProfile& profile, const ProgramStructure& structure,
                             const MetricRegistry& registry, const ViewRequest& request,
                             const std::vector<std::string>& fragment) {
  if (fragment.empty()) throw std::runtime_error("the stack fragment is empty (add a function with -cprepend or -cappend)");
  std::vector<std::set<FunctionId>> wanted;
  for (const std::string& entry : fragment) {
    const auto [name, which] = split_numbered(entry);
    const std::vector<FunctionId> ids = functions_named(profile, structure, name, which);
    if (ids.empty()) throw std::runtime_error("no function named '" + name + "' has data");
    wanted.emplace_back(ids.begin(), ids.end());
  }
  const size_t n = wanted.size();
  std::map<FunctionId, Values> callers, callees;
  std::vector<FunctionId> matched(n, kUnknownFunction);  // the fragment's functions as met first
  Values through, stayed;
  const size_t metric_count = profile.metric_count();
  through.assign(metric_count, 0);
  stayed.assign(metric_count, 0);
  std::vector<FunctionId> root_first;
  for (size_t s = 0; s < profile.stacks().size(); ++s) {
    const auto frames = profile.frames(profile.stacks()[s]);
    root_first.assign(frames.rbegin(), frames.rend());
    const auto values = profile.values(s);
    const Values none(metric_count, 0);
    bool counted = false;
    // From the leaf: the innermost occurrence counts, as callers-callees
    // attributes recursion; outer ones list their caller and callee.
    for (size_t at = root_first.size() >= n ? root_first.size() - n + 1 : 0; at-- > 0;) {
      bool match = true;
      for (size_t k = 0; k < n && match; ++k) match = wanted[k].count(root_first[at + k]) > 0;
      if (!match) continue;
      const std::span<const int64_t> share = counted ? std::span<const int64_t>(none) : values;
      if (!counted) add(through, values);
      if (matched[0] == kUnknownFunction)
        for (size_t k = 0; k < n; ++k) matched[k] = root_first[at + k];
      if (at > 0) add(callers[root_first[at - 1]], share);
      if (at + n < root_first.size()) add(callees[root_first[at + n]], share);
      else add(stayed, share);
      counted = true;
    }
  }
  const Values& total = profile.functions().total();
  Document document{"stack_fragment", "", {}, {}};
  ViewTable caller_table = section("Callers", registry, request);
  add_rows(caller_table, callers, structure, registry, request, total);
  ViewTable fragment_table = section("Stack Fragment", registry, request);
  for (size_t k = 0; k < n; ++k) {
    const FunctionId f = matched[k] != kUnknownFunction ? matched[k] : *wanted[k].begin();
    const Function& function = structure.function(f);
    const Values* shown = k + 1 < n ? &through : &stayed;
    ViewRow row;
    row.name = function.name;
    row.load_object = structure.object(function.object).name;
    row.values = row_values(request.metrics, registry, shown, shown, total);
    row.marker = k + 1 < n ? "" : "*";
    fragment_table.rows.push_back(std::move(row));
  }
  ViewTable callee_table = section("Callees", registry, request);
  add_rows(callee_table, callees, structure, registry, request, total);
  document.tables = {std::move(caller_table), std::move(fragment_table), std::move(callee_table)};
  document.tables_member = true;
  return document;
}

}  // namespace lumen::analysis
