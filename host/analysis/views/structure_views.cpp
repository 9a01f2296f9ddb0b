#include "structure_views.h"

#include <algorithm>
#include <cstdio>
#include <functional>

#include "metric_cells.h"

namespace lumen::analysis {

namespace {

// Names and places one node of an engine (a function or a load object).
struct NodeNaming {
  std::function<std::string(NodeId)> name;
  std::function<std::string(NodeId)> load_object;
};

// The value of one column for a node; `attributed` is the context's
// attributed values (an edge, or the node's own share).
double cell(const MetricColumn& c, const MetricRegistry& registry, const MetricEngine& engine,
            const MetricEngine::NodeMetrics* node, const Values* attributed) {
  if (c.flavor != Flavor::Attributed)
    return cell_value(c, registry, node ? &node->exclusive : nullptr, node ? &node->inclusive : nullptr,
                      engine.total());
  const Values* source = attributed ? attributed : (node ? &node->self_attributed : nullptr);
  const MetricColumn as_exclusive{Flavor::Exclusive, c.metric, c.percent};
  return cell_value(as_exclusive, registry, source, nullptr, engine.total());
}

ViewRow make_row(NodeId id, const NodeNaming& naming, const ViewRequest& request, const MetricRegistry& registry,
                 const MetricEngine& engine, const Values* attributed) {
  ViewRow row;
  row.name = naming.name(id);
  row.load_object = naming.load_object(id);
  const MetricEngine::NodeMetrics* node = engine.node(id);
  for (const MetricColumn& c : request.metrics.columns)
    row.values.push_back(cell(c, registry, engine, node, attributed));
  return row;
}

double sort_value(const SortKey& key, const MetricRegistry& registry, const MetricEngine::NodeMetrics& node) {
  const Values& v = key.flavor == Flavor::Inclusive    ? node.inclusive
                    : key.flavor == Flavor::Attributed ? node.self_attributed
                                                       : node.exclusive;
  return registry.value_of(key.metric, v);
}

// Nodes other than <Total>, in the requested order, limited.
std::vector<NodeId> ordered_nodes(const MetricEngine& engine, NodeId total, const NodeNaming& naming,
                                  const ViewRequest& request, const MetricRegistry& registry) {
  std::vector<NodeId> ids;
  for (const auto& [id, metrics] : engine.nodes())
    if (id != total) ids.push_back(id);
  std::vector<std::string> names;
  std::sort(ids.begin(), ids.end(), [&](NodeId a, NodeId b) {
    const std::string an = naming.name(a), bn = naming.name(b);
    if (request.sort.by_name) return an != bn ? (an < bn) != request.sort.reverse : a < b;
    const double av = sort_value(request.sort, registry, *engine.node(a));
    const double bv = sort_value(request.sort, registry, *engine.node(b));
    return av != bv ? (av > bv) != request.sort.reverse : (an != bn ? an < bn : a < b);
  });
  if (request.limit && ids.size() > *request.limit) ids.resize(*request.limit);
  return ids;
}

std::vector<ViewRow> edge_rows(const MetricEngine::EdgeMap& edges, const NodeNaming& naming,
                               const ViewRequest& request, const MetricRegistry& registry, const MetricEngine& engine) {
  std::vector<std::pair<NodeId, const Values*>> list;
  for (const auto& [id, values] : edges) list.emplace_back(id, &values);
  const size_t m = request.sort.by_name ? 0 : request.sort.metric;
  std::sort(list.begin(), list.end(), [&](const auto& a, const auto& b) {
    const double av = registry.value_of(m, *a.second), bv = registry.value_of(m, *b.second);
    return av != bv ? av > bv : naming.name(a.first) < naming.name(b.first);
  });
  std::vector<ViewRow> rows;
  for (const auto& [id, values] : list) rows.push_back(make_row(id, naming, request, registry, engine, values));
  return rows;
}

std::string sort_title(const ViewRequest& request, const MetricRegistry& registry) {
  if (request.sort.by_name) return "name";
  return flavor_word(request.sort.flavor) + " " + registry.metrics()[request.sort.metric].title;
}

NodeNaming function_naming(const ProgramStructure& structure) {
  return {[&structure](NodeId id) { return structure.function(id).name; },
          [&structure](NodeId id) {
            return id == kTotalFunction ? std::string() : structure.object(structure.function(id).object).name;
          }};
}

ViewTable table_of(const std::string& view, const std::string& title, const ViewRequest& request,
                   const MetricRegistry& registry, bool nested) {
  ViewTable table;
  table.view = view;
  table.title = title;
  table.columns = columns_of(request.metrics, registry);
  table.name_position = request.metrics.name_position;
  table.nested = nested;
  return table;
}

}  // namespace

std::vector<FunctionId> ordered_functions(const StackProfile& profile, const ProgramStructure& structure,
                                          const MetricRegistry& registry, const ViewRequest& request) {
  return ordered_nodes(profile.functions(), kTotalFunction, function_naming(structure), request, registry);
}

std::vector<FunctionId> functions_named(const StackProfile& profile, const ProgramStructure& structure,
                                        const std::string& name) {
  std::vector<FunctionId> found;
  for (const auto& [id, metrics] : profile.functions().nodes())
    if (is_named(structure.function(id), name)) found.push_back(id);
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<FunctionId> functions_named(const StackProfile& profile, const ProgramStructure& structure,
                                        const std::string& name, size_t which) {
  return nth_named(functions_named(profile, structure, name), name, which);
}

std::vector<FunctionId> nth_named(std::vector<FunctionId> found, const std::string& name, size_t which) {
  if (which == 0) return found;
  if (which > found.size())
    throw std::runtime_error("'" + std::to_string(which) + "': " + std::to_string(found.size()) +
                             " function(s) named '" + name + "' have data; give 1 to " + std::to_string(found.size()));
  return {found[which - 1]};
}

ViewTable functions_view(const StackProfile& profile, const ProgramStructure& structure, const MetricRegistry& registry,
                         const ViewRequest& request) {
  ViewTable table = table_of("functions", "Functions sorted by metric: " + sort_title(request, registry), request,
                             registry, false);
  const NodeNaming naming = function_naming(structure);
  const MetricEngine& engine = profile.functions();
  std::vector<NodeId> ids = {kTotalFunction};
  for (const NodeId id : ordered_nodes(engine, kTotalFunction, naming, request, registry)) ids.push_back(id);
  for (const NodeId id : ids) {
    ViewRow row = make_row(id, naming, request, registry, engine, nullptr);
    // "size" and "address" in the metric list: facts of each function.
    const Function& f = structure.function(id);
    const bool known = id != kTotalFunction && f.object != kNoObject;
    char address[32] = "";
    if (known) std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(f.start));
    if (request.metrics.show_size) row.fields.emplace_back("size", known ? std::to_string(f.size) : "");
    if (request.metrics.show_address) row.fields.emplace_back("address", address);
    table.rows.push_back(std::move(row));
  }
  return table;
}

ViewTable callers_callees_view(const StackProfile& profile, const ProgramStructure& structure,
                               const MetricRegistry& registry, ViewRequest request) {
  const bool has_attributed = std::any_of(request.metrics.columns.begin(), request.metrics.columns.end(),
                                          [](const MetricColumn& c) { return c.flavor == Flavor::Attributed; });
  if (!has_attributed && !request.metrics.columns.empty()) {
    request.metrics.columns.insert(request.metrics.columns.begin(),
                                   {Flavor::Attributed, request.metrics.columns.front().metric, false});
    ++request.metrics.name_position;
  }
  ViewTable table = table_of("callers-callees", "Callers and callees sorted by metric: " + sort_title(request, registry),
                             request, registry, true);
  const NodeNaming naming = function_naming(structure);
  const MetricEngine& engine = profile.functions();
  std::vector<NodeId> ids{kTotalFunction};
  for (const NodeId id : ordered_nodes(engine, kTotalFunction, naming, request, registry)) ids.push_back(id);
  for (const NodeId id : ids) {
    ViewRow row = make_row(id, naming, request, registry, engine, nullptr);
    row.callers = edge_rows(engine.callers(id), naming, request, registry, engine);
    row.callees = edge_rows(engine.callees(id), naming, request, registry, engine);
    table.rows.push_back(std::move(row));
  }
  return table;
}

ViewTable objects_view(const StackProfile& profile, const ProgramStructure& structure, const MetricRegistry& registry,
                       const ViewRequest& request) {
  ViewTable table = table_of("objects", "Load objects sorted by metric: " + sort_title(request, registry), request,
                             registry, false);
  const NodeNaming naming{
      [&structure](NodeId id) { return id == kTotalObjectNode ? std::string("<Total>") : structure.object(id).name; },
      [&structure](NodeId id) { return id == kTotalObjectNode ? std::string() : structure.object(id).path; }};
  const MetricEngine& engine = profile.objects();
  table.rows.push_back(make_row(kTotalObjectNode, naming, request, registry, engine, nullptr));
  for (const NodeId id : ordered_nodes(engine, kTotalObjectNode, naming, request, registry))
    table.rows.push_back(make_row(id, naming, request, registry, engine, nullptr));
  return table;
}

}  // namespace lumen::analysis
