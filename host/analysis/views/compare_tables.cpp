#include "compare_tables.h"

#include <algorithm>
#include <map>
#include <string>

namespace lumen::analysis {

namespace {

// The facts of a row that say what it stands for (not what was measured).
bool identifies(const std::string& field) {
  return field == "kind" || field == "line" || field == "address" || field == "file" || field == "section" ||
         field == "source_line";
}

std::string identity(const ViewRow& row, const std::string& path) {
  std::string key = path + '\x1f' + row.name + '\x1f' + row.load_object;
  for (const auto& [field, value] : row.fields)
    if (identifies(field)) key += '\x1f' + field + '=' + value;
  return key;
}

struct Merged {
  ViewRow row;                        // name and facts from the first experiment that has it
  std::vector<const ViewRow*> by_experiment;
};

// The keys of a list of rows, in a tree as the path of names from the root.
std::vector<std::string> keys_of(const std::vector<ViewRow>& rows, bool tree) {
  std::vector<std::string> keys;
  std::vector<std::string> path;  // names by depth
  std::map<std::string, int> seen;
  for (const ViewRow& row : rows) {
    std::string prefix;
    if (tree) {
      path.resize(static_cast<size_t>(std::max(0, row.depth)));
      for (const std::string& name : path) prefix += name + '\x1e';
      path.push_back(row.name);
    }
    std::string key = identity(row, prefix);
    // Two rows that look alike in one table (rare) stay two rows.
    const int n = seen[key]++;
    if (n > 0) key += '\x1d' + std::to_string(n);
    keys.push_back(std::move(key));
  }
  return keys;
}

std::vector<ViewRow> merge_rows(const std::vector<const std::vector<ViewRow>*>& lists, bool tree, CompareMode mode,
                                size_t columns);

ViewRow compared_row(const Merged& m, bool tree, CompareMode mode, size_t columns) {
  ViewRow row = m.row;
  row.values.clear();
  const size_t experiments = m.by_experiment.size();
  const ViewRow* first = m.by_experiment.front();
  for (size_t k = 0; k < experiments; ++k) {
    const ViewRow* here = m.by_experiment[k];
    for (size_t c = 0; c < columns; ++c) {
      const double value = here != nullptr && c < here->values.size() ? here->values[c] : 0.0;
      const double reference = first != nullptr && c < first->values.size() ? first->values[c] : 0.0;
      double shown = value;
      if (k > 0 && mode == CompareMode::Delta) shown = value - reference;
      if (k > 0 && mode == CompareMode::Ratio) shown = reference == 0 ? 0.0 : value / reference;
      row.values.push_back(shown);
    }
  }
  std::vector<const std::vector<ViewRow>*> callers, callees;
  bool nested = false;
  static const std::vector<ViewRow> none;
  for (const ViewRow* r : m.by_experiment) {
    callers.push_back(r != nullptr ? &r->callers : &none);
    callees.push_back(r != nullptr ? &r->callees : &none);
    nested = nested || (r != nullptr && (!r->callers.empty() || !r->callees.empty()));
  }
  if (nested) {
    row.callers = merge_rows(callers, false, mode, columns);
    row.callees = merge_rows(callees, false, mode, columns);
  }
  (void)tree;
  return row;
}

std::vector<ViewRow> merge_rows(const std::vector<const std::vector<ViewRow>*>& lists, bool tree, CompareMode mode,
                                size_t columns) {
  // The merged rows as a list linked in output order, so a row is put after
  // the row it follows in its own table in constant time.
  std::vector<Merged> merged;
  std::vector<size_t> next;  // merged index -> the next in output order
  constexpr size_t kEnd = SIZE_MAX;
  size_t head = kEnd, tail = kEnd;
  std::map<std::string, size_t> index;  // key -> merged index
  for (size_t k = 0; k < lists.size(); ++k) {
    const std::vector<std::string> keys = keys_of(*lists[k], tree);
    size_t after = kEnd;  // this table's previous row, merged
    for (size_t r = 0; r < keys.size(); ++r) {
      auto found = index.find(keys[r]);
      if (found == index.end()) {
        Merged m;
        m.row = (*lists[k])[r];
        m.by_experiment.assign(lists.size(), nullptr);
        merged.push_back(std::move(m));
        const size_t added = merged.size() - 1;
        if (after == kEnd) {  // before everything of its table: first, or at the end when others came first
          next.push_back(kEnd);
          if (head == kEnd) head = added;
          else next[tail] = added;
          tail = added;
        } else {
          next.push_back(next[after]);
          next[after] = added;
          if (tail == after) tail = added;
        }
        found = index.emplace(keys[r], added).first;
      }
      merged[found->second].by_experiment[k] = &(*lists[k])[r];
      after = found->second;
    }
  }
  std::vector<ViewRow> rows;
  rows.reserve(merged.size());
  for (size_t m = head; m != kEnd; m = next[m]) rows.push_back(compared_row(merged[m], tree, mode, columns));
  return rows;
}

}  // namespace

ViewColumn compared_column(ViewColumn column, size_t k, CompareMode mode) {
  column.key = std::to_string(k + 1) + ":" + column.key;
  column.flavor += " #" + std::to_string(k + 1);
  if (k > 0 && mode == CompareMode::Ratio) {
    column.unit = LUMEN_UNIT_RATIO;
    column.percent = false;
    column.title += " (ratio to #1)";
  } else if (k > 0 && mode == CompareMode::Delta) {
    column.title += " (minus #1)";
  }
  return column;
}

ViewTable compare_tables(const std::vector<ViewTable>& tables, CompareMode mode) {
  ViewTable table = tables.front();
  const size_t columns = table.columns.size();
  table.title = std::to_string(tables.size()) + " experiments side by side" +
                (mode == CompareMode::Delta   ? ", the others as differences from the first"
                 : mode == CompareMode::Ratio ? ", the others as ratios to the first"
                                              : "") +
                ": " + table.title;
  table.columns.clear();
  for (size_t k = 0; k < tables.size(); ++k)
    for (const ViewColumn& column : tables.front().columns) table.columns.push_back(compared_column(column, k, mode));
  // The name column stays after the metrics when it was after them.
  if (table.name_position >= columns) table.name_position = table.columns.size();
  std::vector<const std::vector<ViewRow>*> lists;
  for (const ViewTable& t : tables) lists.push_back(&t.rows);
  table.rows = merge_rows(lists, table.tree, mode, columns);
  return table;
}

}  // namespace lumen::analysis
