#include "report_data.h"

#include <algorithm>

#include "command_table.h"
#include "export_frames.h"
#include "lumen_version.h"
#include "report_timeline.h"

namespace lumen::er_html {

namespace {

using nlohmann::json;

// A view as er_print -format json prints it; null with the reason when the
// command refuses (no source file found, say).
json view(er_print::Session& session, std::ostringstream& buffer, const std::string& command,
          const std::vector<std::string>& arguments = {}) {
  buffer.str("");
  try {
    const auto found = er_print::find_command(command, session.plugins());
    if (!found) return json{{"unavailable", "no command " + command}};
    found->run(session, arguments);
    session.flush_views();  // each view its own document
    return json::parse(buffer.str());
  } catch (const std::exception& e) {
    return json{{"unavailable", e.what()}};
  }
}

json metric_list(const analysis::MetricRegistry& registry, const std::vector<size_t>& metrics) {
  json list = json::array();
  for (const size_t m : metrics) {
    const analysis::MetricDef& def = registry.metrics().at(m);
    list.push_back({{"keyword", def.keyword}, {"title", def.title}, {"unit", exporting::unit_word(def.unit)}});
  }
  return list;
}

// The hottest functions by the first metric's exclusive value, for source.
std::vector<std::string> hottest_functions(const analysis::StackProfile& profile,
                                           const analysis::ProgramStructure& structure, size_t metric, size_t count) {
  std::vector<std::pair<int64_t, analysis::FunctionId>> ranked;
  for (const auto& [f, node] : profile.functions().nodes()) {
    // Functions without symbols (<static>@0x..., <Unknown>) have no source to annotate.
    if (f == analysis::kTotalFunction || structure.function(f).object == analysis::kNoObject ||
        structure.function(f).name.rfind('<', 0) == 0)
      continue;
    const int64_t v = node.exclusive.empty() ? 0 : node.exclusive[metric];
    if (v > 0) ranked.push_back({v, f});
  }
  std::sort(ranked.rbegin(), ranked.rend());
  std::vector<std::string> names;
  for (size_t i = 0; i < ranked.size() && names.size() < count; ++i) {
    const std::string& name = structure.function(ranked[i].second).name;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  return names;
}

}  // namespace

json report_data(er_print::Session& session, std::ostringstream& buffer, const ReportOptions& options) {
  session.set_format("json");
  session.set_limit("0");
  // Before any view builds the profile: the timeline is binned in its pass.
  TimelineBins timeline(session.experiments(), session.registry(), session.export_filter(), options.timeline_bins,
                        session.filters_stacks());
  session.observe_next_profile(timeline.observer());
  json data;
  data["generator"] = std::string("lumen er_html ") + LUMEN_VERSION;
  data["header"] = view(session, buffer, "header");
  data["overview"] = view(session, buffer, "overview");
  data["statistics"] = view(session, buffer, "statistics");
  data["functions"] = view(session, buffer, "functions");
  data["callers_callees"] = view(session, buffer, "callers-callees");
  data["threads"] = view(session, buffer, "thread_list");
  json warnings = json::array();
  for (const auto& experiment : session.experiments())
    for (const std::string& warning : experiment->warnings())
      warnings.push_back(experiment->path().filename().string() + ": " + warning);
  data["warnings"] = warnings;

  const analysis::StackProfile& profile = session.profile();
  const std::vector<size_t> metrics = exporting::exported_metrics(session.view_request().metrics, session.registry());
  data["metrics"] = metric_list(session.registry(), metrics);
  std::vector<analysis::FunctionId> functions;
  data["stacks"] = stack_table(profile, session.structure(), metrics, functions);

  if (options.compare && options.experiments.size() >= 2) {
    // The first two experiments given, each alone (descendants stay with their founder's index).
    const auto each = session.profiles_of_each();
    std::vector<size_t> chosen;
    for (size_t k = 0; k < options.experiments.size() && chosen.size() < 2; ++k)
      for (size_t e = 0; e < session.experiments().size(); ++e)
        if (std::filesystem::equivalent(session.experiments()[e]->path(), options.experiments[k])) chosen.push_back(e);
    if (chosen.size() == 2) {
      data["compare"] = {{"base", session.experiments()[chosen[0]]->path().filename().string()},
                         {"new", session.experiments()[chosen[1]]->path().filename().string()},
                         {"base_stacks", stack_table(*each[chosen[0]], session.structure(), metrics, functions)},
                         {"new_stacks", stack_table(*each[chosen[1]], session.structure(), metrics, functions)}};
    }
  }
  json names = json::array();
  for (const analysis::FunctionId f : functions) {
    const analysis::Function& fn = session.structure().function(f);
    names.push_back({{"name", fn.name},
                     {"object", fn.object == analysis::kNoObject ? "<Unknown>" : session.structure().object(fn.object).name}});
  }
  data["frames"] = names;

  const exporting::ExportInput input{session.experiments(), profile, session.structure(), session.registry(), metrics,
                                     session.export_filter()};
  data["timeline"] = timeline.json(input);

  json sources = json::object();
  std::vector<std::string> hottest;
  if (!options.sources)
    data["sources_left_out"] =
        "Source files are not embedded in this report: they are read from the paths the experiment names, and a "
        "report is shared. er_html --sources embeds the annotated source of the hottest functions.";
  else if (!metrics.empty())
    hottest = hottest_functions(profile, session.structure(), metrics.front(), options.annotated_functions);
  for (const std::string& name : hottest) sources[name] = view(session, buffer, "source", {name});
  data["sources"] = sources;
  data["source_order"] = hottest;  // hottest first (JSON objects keep no order)
  return data;
}

}  // namespace lumen::er_html
