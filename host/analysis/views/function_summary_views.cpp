#include "function_summary_views.h"

#include <cstdio>
#include <stdexcept>

#include "hex_text.h"
#include "metric_cells.h"
#include "record_render.h"

namespace lumen::analysis {

namespace {

Record summary_of(FunctionId id, const Profile& profile, const ProgramStructure& structure,
                  const MetricRegistry& registry, const ViewRequest& request) {
  const Function& f = structure.function(id);
  const MetricEngine::NodeMetrics* node = profile.functions().node(id);
  Record record;
  record.heading = f.name;
  for (const MetricColumn& c : request.metrics.columns) {
    const double value = cell_value(c, registry, node ? &node->exclusive : nullptr, node ? &node->inclusive : nullptr,
                                    profile.functions().total());
    const MetricDef& m = registry.metrics()[c.metric];
    const std::string label = flavor_word(c.flavor == Flavor::Attributed ? Flavor::Exclusive : c.flavor) + " " + m.title +
                              (c.percent ? " (%)" : "");
    const bool fractional = m.unit == LUMEN_UNIT_NANOSECONDS || m.unit == LUMEN_UNIT_RATIO;
    record.add_number(column_key(c, registry), label, value, c.percent ? 2 : fractional ? 3 : 0);
  }
  const bool real = id > kTruncatedFunction;
  record.add_number("size", "Size", static_cast<double>(f.size), 0);
  record.add("address", "PC Address", real ? hex(f.start) : "");
  std::string source = "(unknown)";
  std::vector<std::string> aliases;
  const ObjectSymbols* symbols = real ? structure.symbols(f.object) : nullptr;
  if (symbols != nullptr) {
    if (const auto line = symbols->source_line(f.start)) source = line->file;
    if (f.start != 0 || f.mangled_name != f.name)
      for (const std::string& alias : symbols->names_at(f.start))
        if (alias != f.mangled_name) aliases.push_back(alias);
  }
  record.add("source_file", "Source File", source);
  record.add("object_file", "Object File", real ? structure.object(f.object).path : "(unknown)");
  record.add("load_object", "Load Object", real ? structure.object(f.object).name : "<Unknown>");
  record.add("mangled_name", "Mangled Name", f.mangled_name != f.name ? f.mangled_name : "");
  std::string alias_list;
  for (const std::string& a : aliases) alias_list += (alias_list.empty() ? "" : " ") + a;
  record.add("aliases", "Aliases", alias_list);
  return record;
}

std::vector<FunctionId> named_or_fail(const Profile& profile, const ProgramStructure& structure, const std::string& name) {
  std::vector<FunctionId> ids = functions_named(profile, structure, name);
  if (ids.empty())
    throw std::runtime_error("no function named '" + name + "' has data in the selected events (see -functions)");
  return ids;
}

}  // namespace

std::string function_summaries(const Profile& profile, const ProgramStructure& structure,
                               const MetricRegistry& registry, const ViewRequest& request, OutputFormat format) {
  std::vector<Record> records{summary_of(kTotalFunction, profile, structure, registry, request)};
  for (const FunctionId id : ordered_functions(profile, structure, registry, request))
    records.push_back(summary_of(id, profile, structure, registry, request));
  return render_records("fsummary", "Function summaries sorted by metric: " + sort_title(request.sort, registry), records,
                        format);
}

std::string function_summary(const Profile& profile, const ProgramStructure& structure, const MetricRegistry& registry,
                             const ViewRequest& request, const std::string& name, OutputFormat format) {
  std::vector<Record> records;
  for (const FunctionId id : named_or_fail(profile, structure, name))
    records.push_back(summary_of(id, profile, structure, registry, request));
  return render_records("fsingle", "", records, format);
}

ViewTable callers_callees_of(const Profile& profile, const ProgramStructure& structure,
                             const MetricRegistry& registry, const ViewRequest& request, const std::string& name) {
  const std::vector<FunctionId> ids = named_or_fail(profile, structure, name);
  ViewRequest all = request;
  all.limit.reset();
  ViewTable table = callers_callees_view(profile, structure, registry, all);
  table.view = "csingle";
  std::vector<ViewRow> kept;
  for (ViewRow& row : table.rows)
    for (const FunctionId id : ids)
      if (row.name == structure.function(id).name) {
        kept.push_back(std::move(row));
        break;
      }
  table.rows = std::move(kept);
  return table;
}

}  // namespace lumen::analysis
