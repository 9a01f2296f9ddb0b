#include "code_views.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>

#include "hex_text.h"
#include "metric_cells.h"

namespace lumen::analysis {

namespace {

template <typename Key>
std::vector<const std::pair<const Key, CodeMetrics>*> ordered(const std::map<Key, CodeMetrics>& items,
                                                              const ViewRequest& request, const MetricRegistry& registry,
                                                              const std::function<std::string(const Key&)>& name) {
  std::vector<const std::pair<const Key, CodeMetrics>*> list;
  for (const auto& item : items) list.push_back(&item);
  std::stable_sort(list.begin(), list.end(), [&](const auto* a, const auto* b) {
    if (!request.sort.by_name) {
      const double va = sort_value_of(request.sort, registry, &a->second.exclusive, &a->second.inclusive);
      const double vb = sort_value_of(request.sort, registry, &b->second.exclusive, &b->second.inclusive);
      if (va != vb) return (va > vb) != request.sort.reverse;
    }
    return name(a->first) < name(b->first);
  });
  if (request.limit && list.size() > *request.limit) list.resize(*request.limit);
  return list;
}

ViewTable table_for(const std::string& view, const std::string& what, const MetricRegistry& registry,
                    const ViewRequest& request) {
  ViewTable table;
  table.view = view;
  table.title = what + " sorted by metric: " + sort_title(request.sort, registry);
  table.columns = columns_of(request.metrics, registry);
  table.name_position = request.metrics.name_position;
  return table;
}

ViewRow total_row(const CodeProfile& code, const MetricRegistry& registry, const ViewRequest& request) {
  ViewRow row;
  row.name = "<Total>";
  row.values = row_values(request.metrics, registry, &code.total(), &code.total(), code.total());
  return row;
}

}  // namespace

std::string address_in_function(const ProgramStructure& structure, FunctionId function, uint64_t address) {
  const Function& f = structure.function(function);
  if (function <= kTruncatedFunction || address < f.start) return f.name + " " + hex(address);
  return f.name + " + " + hex(address - f.start);
}

ViewTable lines_view(const CodeProfile& code, const ProgramStructure& structure, const MetricRegistry& registry,
                     const ViewRequest& request) {
  ViewTable table = table_for("lines", "Lines", registry, request);
  ViewRow total = total_row(code, registry, request);
  total.fields = {{"file", ""}, {"line", ""}};
  table.rows.push_back(std::move(total));
  auto name = [](const LineKey& k) { return k.file + ":" + std::to_string(100000000 + k.line); };
  for (const auto* item : ordered<LineKey>(code.lines(), request, registry, name)) {
    const LineKey& key = item->first;
    ViewRow row;
    const Function& f = structure.function(item->second.function);
    // As gprofng names the code of a function that has no line numbers.
    row.name = key.file.empty() ? "<Function: " + f.name + ", instructions without line numbers>"
                                : f.name + ", line " + std::to_string(key.line) + " in \"" +
                                      std::filesystem::path(key.file).filename().string() + "\"";
    row.load_object = structure.object(f.object).name;
    row.values = row_values(request.metrics, registry, &item->second.exclusive, &item->second.inclusive, code.total());
    row.fields = {{"file", key.file}, {"line", key.file.empty() ? "" : std::to_string(key.line)}};
    table.rows.push_back(std::move(row));
  }
  return table;
}

ViewTable pcs_view(const CodeProfile& code, const ProgramStructure& structure, const MetricRegistry& registry,
                   const ViewRequest& request) {
  ViewTable table = table_for("pcs", "PCs", registry, request);
  ViewRow total = total_row(code, registry, request);
  total.fields = {{"address", ""}};
  table.rows.push_back(std::move(total));
  auto name = [&](const CodeProfile::AddressKey& k) {
    return structure.object(k.first).name + hex(k.second + (uint64_t{1} << 60));
  };
  for (const auto* item : ordered<CodeProfile::AddressKey>(code.addresses(), request, registry, name)) {
    ViewRow row;
    row.name = address_in_function(structure, item->second.function, item->first.second);
    row.load_object = structure.object(item->first.first).name;
    row.values = row_values(request.metrics, registry, &item->second.exclusive, &item->second.inclusive, code.total());
    row.fields = {{"address", hex(item->first.second)}};
    table.rows.push_back(std::move(row));
  }
  return table;
}

}  // namespace lumen::analysis
