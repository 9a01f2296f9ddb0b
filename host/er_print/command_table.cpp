#include "command_table.h"

#include <cstdio>
#include <ostream>

#include "header_view.h"
#include "plugin_view.h"
#include "structure_views.h"

namespace lumen::er_print {

using namespace analysis;

namespace {

void require_experiments(Session& s) {
  if (s.experiments().empty()) throw CommandError("no experiment is open");
}

void print_help(Session& s, const std::vector<std::string>&) {
  s.out() << "Commands (on the command line as -name args; at the prompt as name args):\n";
  auto line = [&](const std::string& usage, const std::string& help) {
    s.out() << "  " << usage << std::string(usage.size() < 24 ? 24 - usage.size() : 1, ' ') << help << "\n";
  };
  for (const Command& c : command_table()) line(c.name + (c.arguments.empty() ? "" : " " + c.arguments), c.help);
  for (const auto& [plugin, half] : s.plugins().all())
    for (size_t i = 0; i < half->descriptor->view_count; ++i)
      line(half->descriptor->views[i].command, std::string(half->descriptor->views[i].help) + " [" + plugin + "]");
}

void print_experiment_list(Session& s, const std::vector<std::string>&) {
  require_experiments(s);
  const auto& experiments = s.experiments();
  auto field = [](const Experiment& e, const char* key) { return e.header()[key].as<std::string>(""); };
  auto command = [](const Experiment& e) {
    std::string line;
    if (const YAML::Node c = e.header()["command"]; c && c.IsSequence())
      for (const auto& word : c) line += (line.empty() ? "" : " ") + word.as<std::string>();
    return line;
  };
  if (s.format() == OutputFormat::Json) {
    s.out() << "{\"view\": \"exp_list\", \"experiments\": [";
    for (size_t i = 0; i < experiments.size(); ++i) {
      const Experiment& e = *experiments[i];
      s.out() << (i ? ", " : "") << "{\"id\": " << i + 1 << ", \"path\": " << json_string(e.path().string())
              << ", \"pid\": " << field(e, "target_pid") << ", \"lineage\": " << json_string(field(e, "lineage"))
              << ", \"command\": " << json_string(command(e)) << "}";
    }
    s.out() << "]}\n";
    return;
  }
  if (s.format() == OutputFormat::Csv) s.out() << "id,pid,lineage,path,command\n";
  else s.out() << "ID  PID      Lineage       Experiment and command\n";
  for (size_t i = 0; i < experiments.size(); ++i) {
    const Experiment& e = *experiments[i];
    const std::string lineage = field(e, "lineage").empty() ? "(founder)" : field(e, "lineage");
    if (s.format() == OutputFormat::Csv) {
      s.out() << i + 1 << "," << field(e, "target_pid") << "," << lineage << "," << json_string(e.path().string())
              << "," << json_string(command(e)) << "\n";
    } else {
      char line[64];
      std::snprintf(line, sizeof line, "%-3zu %-8s %-13s ", i + 1, field(e, "target_pid").c_str(), lineage.c_str());
      s.out() << line << e.path().string() << "  (" << command(e) << ")\n";
    }
  }
}

void print_metric_list(Session& s, const std::vector<std::string>&) {
  const auto& metrics = s.registry().metrics();
  if (s.format() == OutputFormat::Json) {
    s.out() << "{\"view\": \"metric_list\", \"metrics\": [";
    for (size_t i = 0; i < metrics.size(); ++i) {
      const MetricDef& m = metrics[i];
      s.out() << (i ? ", " : "") << "{\"keyword\": " << json_string(m.keyword) << ", \"title\": " << json_string(m.title)
              << ", \"unit\": "
              << json_string(m.unit == LUMEN_UNIT_NANOSECONDS ? "sec." : m.unit == LUMEN_UNIT_BYTES ? "bytes" : "count")
              << ", \"flavors\": \"" << ((m.flavors & LUMEN_FLAVOR_EXCLUSIVE) ? "e" : "")
              << ((m.flavors & LUMEN_FLAVOR_INCLUSIVE) ? "i" : "") << ((m.flavors & LUMEN_FLAVOR_ATTRIBUTED) ? "a" : "")
              << "\"}";
    }
    s.out() << "]}\n";
    return;
  }
  s.out() << "Available metrics:\n";
  for (const MetricDef& m : metrics) {
    s.out() << "  " << m.keyword << "  " << m.title << " ("
            << (m.unit == LUMEN_UNIT_NANOSECONDS ? "sec." : m.unit == LUMEN_UNIT_BYTES ? "bytes" : "count") << "; flavors:"
            << ((m.flavors & LUMEN_FLAVOR_EXCLUSIVE) ? " e" : "") << ((m.flavors & LUMEN_FLAVOR_INCLUSIVE) ? " i" : "")
            << ((m.flavors & LUMEN_FLAVOR_ATTRIBUTED) ? " a" : "") << ")\n";
  }
}

}  // namespace

const std::vector<Command>& command_table() {
  static const std::vector<Command> commands = {
      {"functions", 0, "", "functions with their metrics",
       [](Session& s, const auto&) {
         require_experiments(s);
         s.out() << render(functions_view(s.profile(), s.structure(), s.registry(), s.view_request()), s.format());
       }},
      {"callers-callees", 0, "", "each function with its callers and callees (attributed metrics)",
       [](Session& s, const auto&) {
         require_experiments(s);
         s.out() << render(callers_callees_view(s.profile(), s.structure(), s.registry(), s.view_request()), s.format());
       }},
      {"objects", 0, "", "load objects with their metrics",
       [](Session& s, const auto&) {
         require_experiments(s);
         s.out() << render(objects_view(s.profile(), s.structure(), s.registry(), s.view_request()), s.format());
       }},
      {"header", 0, "", "what each experiment is and how its target ended",
       [](Session& s, const auto&) {
         require_experiments(s);
         s.out() << header_view(s.experiments(), s.format());
       }},
      {"metric_list", 0, "", "the metrics the experiments offer", print_metric_list},
      {"exp_list", 0, "", "the experiments loaded: founders and their descendants", print_experiment_list},
      {"metrics", 1, "SPEC", "metrics to show, e.g. e.%user:i.user:name",
       [](Session& s, const auto& a) { s.set_metrics(a[0]); }},
      {"sort", 1, "SPEC", "sort by a metric, e.g. i.user, or by name",
       [](Session& s, const auto& a) { s.set_sort(a[0]); }},
      {"limit", 1, "N", "show at most N rows after <Total> (0: all)",
       [](Session& s, const auto& a) { s.set_limit(a[0]); }},
      {"format", 1, "text|csv|json", "output format of the views that follow",
       [](Session& s, const auto& a) { s.set_format(a[0]); }},
      {"help", 0, "", "this list", print_help},
  };
  return commands;
}

std::optional<Command> find_command(const std::string& name, const AnalysisPlugins& plugins) {
  for (const Command& c : command_table())
    if (c.name == name) return c;
  for (const auto& [plugin, half] : plugins.all()) {
    for (size_t i = 0; i < half->descriptor->view_count; ++i) {
      const lumen_view_def& view = half->descriptor->views[i];
      if (name != view.command) continue;
      const std::string plugin_name = plugin;
      return Command{view.command, 0, "", view.help, [plugin_name, &view](Session& s, const auto&) {
                       require_experiments(s);
                       s.out() << run_plugin_view(view, plugin_name, s.experiments(), s.structure(),
                                                  s.limit().value_or(0), s.format());
                     }};
    }
  }
  return std::nullopt;
}

}  // namespace lumen::er_print
