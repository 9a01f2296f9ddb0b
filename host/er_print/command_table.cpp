#include "command_table.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <ostream>

#include "annotated_code.h"
#include "calltree_view.h"
#include "compare_view.h"
#include "code_views.h"
#include "event_list.h"
#include "experiment_views.h"
#include "export_formats.h"
#include "function_summary_views.h"
#include "header_view.h"
#include "lumen_version.h"
#include "plugin_view.h"
#include "plugin_view_command.h"
#include "session_lists.h"
#include "side_by_side.h"
#include "script.h"
#include "structure_views.h"
#include "timeline_view.h"
#include "metric_cells.h"

namespace lumen::er_print {

using namespace analysis;

void require_experiments(Session& s) {
  if (s.experiments().empty())
    throw CommandError("no experiment is open (open_exp EXPERIMENT or add_exp EXPERIMENT opens one)");
}

namespace {

void print_help(Session& s, const std::vector<std::string>&) {
  s.out() << "Commands (on the command line as -name args; at the prompt as name args):\n";
  auto line = [&](const std::string& usage, const std::string& help) {
    s.out() << "  " << usage << std::string(usage.size() < 24 ? 24 - usage.size() : 1, ' ') << help << "\n";
  };
  for (const Command& c : command_table()) line(c.name + (c.arguments.empty() ? "" : " " + c.arguments), c.help);
  for (const auto& [plugin, half] : s.plugins().all())
    for (size_t i = 0; i < half->descriptor->view_count; ++i)
      line(half->descriptor->views[i].command, std::string(half->descriptor->views[i].help) + " [" + plugin + "]");
  // A refusal stands for a view no installed plugin offers.
  for (const Command& c : refused_commands())
    if (!plugin_view_command(c.name, s.plugins()))
      line(c.name + (c.arguments.empty() ? "" : " " + c.arguments), c.help);
}

// `threshold`: the source's (sthresh) or the disassembly's (dthresh).
AnnotationRequest annotation(Session& s, const std::vector<std::string>& a, double threshold) {
  AnnotationRequest request;
  request.target = a[0];
  if (a.size() > 1) request.which = function_number(a[1]);
  request.threshold_percent = threshold;
  request.paths = &s.source_paths();
  for (const auto& e : s.experiments()) request.experiment_dirs.push_back(e->path());
  return request;
}

}  // namespace

size_t function_number(const std::string& text) {
  char* end = nullptr;
  const unsigned long n = std::strtoul(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || n == 0)
    throw CommandError("'" + text + "': which of several functions of one name is a number from 1");
  return n;
}

namespace {

// -event_list's COUNT: how many events to list.
size_t event_count(const std::string& text) {
  char* end = nullptr;
  const unsigned long long count = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || text[0] == '-') throw CommandError("'" + text + "' is not a count of events (0, 1, ...)");
  return static_cast<size_t>(count);
}

// -compare of thread lists: each experiment's view keeps its own threads
// (those with events) and drops what differs between experiments (its
// name, kernel ids, event counts), so thread N of each stands side by side.
void same_threads_side_by_side(ViewTable& threads) {
  std::vector<ViewRow> own;
  for (ViewRow& row : threads.rows) {
    const bool has_events = std::any_of(row.fields.begin(), row.fields.end(), [](const auto& field) {
      return field.first == "events" && field.second != "0";
    });
    if (!has_events) continue;
    row.load_object.clear();
    std::erase_if(row.fields, [](const auto& field) { return field.first != "thread"; });
    own.push_back(std::move(row));
  }
  threads.rows = std::move(own);
}

// "fsingle f 2": the second of the rows of that name.
template <typename Rows>
void keep_nth(Rows& rows, const std::string& which) {
  char* end = nullptr;
  const unsigned long n = std::strtoul(which.c_str(), &end, 10);
  if (which.empty() || *end != '\0' || n == 0 || n > rows.size())
    throw CommandError("'" + which + "': " + std::to_string(rows.size()) + " function(s) have that name; give 1 to " +
                       std::to_string(rows.size()));
  rows = Rows{rows[n - 1]};
}

// A view command: needs experiments, prints what `view` returns.
template <typename View>
std::function<void(Session&, const std::vector<std::string>&)> view(View body) {
  return [body](Session& s, const std::vector<std::string>& a) {
    require_experiments(s);
    s.emit(body(s, a));
  };
}

}  // namespace

const std::vector<Command>& command_table() {
  static const std::vector<Command> commands = [] {
  std::vector<Command> commands = {
      {"functions", 0, "", "functions with their metrics",
       [](Session& s, const auto&) {
         require_experiments(s);
         if (s.compare() != CompareMode::Off && s.experiments().size() > 1)
           s.emit(render(compare_view(s.profiles_of_each(), s.structure(), s.registry(), s.view_request(), s.compare()),
                         s.format()));
         else
           s.emit(render(functions_view(s.profile(), s.structure(), s.registry(), s.view_request()), s.format()));
       }},
      {"callers-callees", 0, "", "each function with its callers and callees (attributed metrics)",
       [](Session& s, const auto&) {
         require_experiments(s);
         s.emit(render(side_by_side(s,
                                    [&](const StackProfile& p) {
                                      return callers_callees_view(p, s.structure(), s.registry(), s.view_request());
                                    }),
                       s.format()));
       }},
      {"objects", 0, "", "load objects with their metrics",
       [](Session& s, const auto&) {
         require_experiments(s);
         s.emit(render(side_by_side(s,
                                    [&](const StackProfile& p) {
                                      return objects_view(p, s.structure(), s.registry(), s.view_request());
                                    }),
                       s.format()));
       }},
      {"fsummary", 0, "", "a summary of each function: metrics, size, address, source and object files, aliases",
       view([](Session& s, const auto&) {
         return render(function_summaries(s.profile(), s.structure(), s.registry(), s.view_request()), s.format());
       })},
      {"fsingle", 1, "FUNC [#]", "the summary of one function (#: which of several of that name)",
       view([](Session& s, const auto& a) {
         Document summary = function_summary(s.profile(), s.structure(), s.registry(), s.view_request(), a[0]);
         if (a.size() > 1) keep_nth(summary.lists.front().records, a[1]);
         return render(summary, s.format());
       }),
       1},
      {"csingle", 1, "FUNC [#]", "one function with its callers and callees (#: which of several of that name)",
       view([](Session& s, const auto& a) {
         ViewTable table = callers_callees_of(s.profile(), s.structure(), s.registry(), s.view_request(), a[0]);
         if (a.size() > 1) keep_nth(table.rows, a[1]);
         return render(table, s.format());
       }),
       1},
      {"calltree", 0, "", "the dynamic call tree from <Total> down",
       view([](Session& s, const auto&) {
         return render(side_by_side(s,
                                    [&](const StackProfile& p) {
                                      return calltree_view(p, s.structure(), s.registry(), s.view_request());
                                    }),
                       s.format());
       })},
      {"object_list", 0, "", "the load objects each experiment mapped, and when",
       view([](Session& s, const auto&) {
         return render(object_list_view(s.experiments(), s.profile(), s.structure()), s.format());
       })},
      {"lines", 0, "", "source lines with their metrics",
       view([](Session& s, const auto&) {
         return render(code_side_by_side(s,
                                         [&](const CodeProfile& code, const StackProfile&) {
                                           return lines_view(code, s.structure(), s.registry(), s.view_request());
                                         }),
                       s.format());
       })},
      {"pcs", 0, "", "instruction addresses with their metrics",
       view([](Session& s, const auto&) {
         return render(code_side_by_side(s,
                                         [&](const CodeProfile& code, const StackProfile&) {
                                           return pcs_view(code, s.structure(), s.registry(), s.view_request());
                                         }),
                       s.format());
       })},
      {"source", 1, "FUNC|FILE [#]",
       "annotated source: each line with its metrics, hot lines marked ## (#: which of several functions of that "
       "name)",
       view([](Session& s, const auto& a) {
         const AnnotationRequest request = annotation(s, a, s.threshold());
         return render(code_side_by_side(s,
                                         [&](const CodeProfile& code, const StackProfile& p) {
                                           return annotated_source(code, p, s.structure(), s.registry(),
                                                                   s.view_request(), request);
                                         }),
                       s.format());
       }),
       1},
      {"disasm", 1, "FUNC|FILE [#]",
       "annotated disassembly with source lines interleaved (#: which of several functions of that name)",
       view([](Session& s, const auto& a) {
         const AnnotationRequest request = annotation(s, a, s.disasm_threshold());
         return render(code_side_by_side(s,
                                         [&](const CodeProfile& code, const StackProfile& p) {
                                           return annotated_disassembly(code, p, s.structure(), s.registry(),
                                                                        s.view_request(), request);
                                         }),
                       s.format());
       }),
       1},
      {"inline", 1, "on|off", "show functions inlined at a PC as callees of their own (DWARF inline information)",
       [](Session& s, const auto& a) { s.set_inline(a[0]); }},
      {"compare", 1, "on|off|delta|ratio",
       "every metric view shows the experiments side by side (delta: differences from the first; ratio: ratios to "
       "it)",
       [](Session& s, const auto& a) { s.set_compare(a[0]); }},
      {"sthresh", 1, "PERCENT", "mark source and disassembly lines at or above PERCENT of the hottest (75)",
       [](Session& s, const auto& a) { s.set_threshold(a[0]); }},
      {"export", 2, "FORMAT FILE", "write the selected events to FILE as folded, pprof, chrome or speedscope",
       [](Session& s, const auto& a) {
         require_experiments(s);
         try {
           const exporting::ExportFormat format = exporting::parse_export_format(a[0]);
           const exporting::ExportInput input{s.experiments(), s.profile(), s.structure(), s.registry(),
                                              exporting::exported_metrics(s.view_request().metrics, s.registry()),
                                              s.export_filter(), s.time_window()};
           exporting::write_export(format, input, a[1]);
         } catch (const exporting::ExportError& e) {
           throw CommandError(std::string("-export: ") + e.what());
         }
       }},
      {"thread_list", 0, "", "threads with their events and metric totals",
       view([](Session& s, const auto&) {
         return render(side_by_side(s,
                                    [&](const StackProfile& p) {
                                      ViewTable threads =
                                          thread_list_view(s.experiments(), p, s.registry(), s.view_request());
                                      if (comparing(s)) same_threads_side_by_side(threads);
                                      return threads;
                                    }),
                       s.format());
       })},
      {"timeline", 0, "", "each thread's events by time bin, with the function leading each bin",
       view([](Session& s, const auto&) {
         const ViewRequest request = s.view_request();
         const SortKey sort = request.sort;
         const MetricRegistry& registry = s.registry();
         const std::vector<TimelineBin> bins = s.timeline(
             [&](const Values& values) { return sort_value_of(sort, registry, &values, &values); });
         return render(timeline_view(s.experiments(), bins, s.timeline_bin_ns(), s.structure(), registry, request),
                       s.format());
       })},
      {"event_list", 0, "[COUNT]",
       "the selected events one by one in time order: thread, CPU, time, span, values and call stack (the first "
       "COUNT; else -limit's, else 1000)",
       view([](Session& s, const auto& a) {
         require_experiments(s);
         const exporting::ExportInput input{s.experiments(), s.profile(), s.structure(), s.registry(), {},
                                            s.export_filter(), s.time_window()};
         return render(exporting::event_list(input, s.view_request(), a.empty() ? s.limit() : event_count(a[0])),
                       s.format());
       }),
       1},
      {"samples", 0, "", "each sample with the process figures across it",
       view([](Session& s, const auto&) { return render(samples_view(s.experiments()), s.format()); })},
      {"overview", 0, "", "per experiment: samples and their figures, and the metric totals",
       view([](Session& s, const auto&) { return render(overview(s.experiments(), s.profile(), s.registry()), s.format()); })},
      {"statistics", 0, "[EXP_ID]", "per experiment: events, stacks, threads, and the process figures",
       view([](Session& s, const auto& a) {
         if (a.empty()) return render(statistics(s.experiments(), s.profile(), s.registry()), s.format());
         s.profile();  // checks the selection
         const size_t id = experiment_id(a[0]);
         const EventFilter selected = s.export_filter();
         return s.with_experiment(id, [&](const auto& one) {
           // The profile of this experiment alone, under the same selection.
           const auto profile = s.profile_of(one, [&](size_t, const lumen_event& event) {
             return !selected || selected(id - 1, event);
           });
           return render(statistics(one, *profile, s.registry()), s.format());
         });
       }),
       1},
      {"thread_select", 1, "LIST", "count only these threads (numbers as -thread_list gives them; all)",
       [](Session& s, const auto& a) { s.select_threads(a[0]); }},
      {"sample_select", 1, "LIST", "count only events in these samples (numbers as -samples gives them; all)",
       [](Session& s, const auto& a) { s.select_samples(a[0]); }},
      {"cpu_select", 1, "LIST", "count only events on these CPUs (all)",
       [](Session& s, const auto& a) { s.select_cpus(a[0]); }},
      {"rank_select", 1, "LIST", "count only events of these MPI ranks (rank: in each sub-experiment's header; all)",
       [](Session& s, const auto& a) { s.select_ranks(a[0]); }},
      {"host_select", 1, "LIST",
       "count only events of experiments recorded on these hosts (numbers as -host_list gives them, or names; all)",
       [](Session& s, const auto& a) { s.select_hosts(a[0]); }},
      {"filters", 1, "EXPR", "e.g. 'thread in 1-2 && time >= 0.5 && function == f' (none: no filter)",
       [](Session& s, const auto& a) { s.set_filters(a[0]); }},
      {"name", 1, "long|short|mangled[:soname|:nosoname]", "how function names are shown; :soname adds the load object",
       [](Session& s, const auto& a) { s.set_name_style(a[0]); }},
      {"viewmode", 1, "user|expert|machine",
       "how stacks show: user (as written: Java methods, OpenMP regions in their function), expert, machine",
       [](Session& s, const auto& a) { s.set_viewmode(a[0]); }},
      {"setpath", 1, "DIRS", "where to look for source files, colon separated ($expts: the experiments)",
       [](Session& s, const auto& a) { s.source_paths().set_path(a[0]); }},
      {"addpath", 1, "DIR", "look for source files in DIR too",
       [](Session& s, const auto& a) { s.source_paths().add_path(a[0]); }},
      {"pathmap", 2, "OLD NEW", "look for sources recorded under OLD in NEW",
       [](Session& s, const auto& a) { s.source_paths().add_pathmap(a[0], a[1]); }},
      {"outfile", 1, "FILE", "write what follows to FILE (- : standard output)",
       [](Session& s, const auto& a) { s.set_output(a[0], false); }},
      {"appendfile", 1, "FILE", "append what follows to FILE",
       [](Session& s, const auto& a) { s.set_output(a[0], true); }},
      {"script", 1, "FILE", "run the commands in FILE, one a line",
       [](Session& s, const auto& a) { run_script_file(s, a[0]); }},
      {"header", 0, "[EXP_ID]", "what each experiment (or experiment EXP_ID) is and how its target ended",
       view([](Session& s, const auto& a) {
         if (a.empty()) return render(header_view(s.experiments(), s.plugins()), s.format());
         return s.with_experiment(experiment_id(a[0]),
                                  [&](const auto& one) { return render(header_view(one, s.plugins()), s.format()); });
       }),
       1},
      {"host_list", 0, "", "the hosts the experiments were recorded on, numbered for -host_select and HOSTID",
       view([](Session& s, const auto&) { return render(host_list(s.experiments()), s.format()); })},
      {"metric_list", 0, "", "the metrics the experiments offer",
       [](Session& s, const auto&) { s.emit(render(metric_list(s.registry()), s.format())); }},
      {"exp_list", 0, "", "the experiments loaded: founders and their descendants",
       view([](Session& s, const auto&) { return render(experiment_list(s.experiments()), s.format()); })},
      {"metrics", 1, "SPEC", "metrics to show, e.g. e.%user:i.user:name",
       [](Session& s, const auto& a) { s.set_metrics(a[0]); }},
      {"sort", 1, "SPEC", "sort by a metric, e.g. i.user, or by name",
       [](Session& s, const auto& a) { s.set_sort(a[0]); }},
      {"limit", 1, "N", "show at most N rows after <Total> (0: all)",
       [](Session& s, const auto& a) { s.set_limit(a[0]); }},
      {"format", 1, "text|csv|json", "output format of the views that follow",
       [](Session& s, const auto& a) { s.set_format(a[0]); }},
      {"help", 0, "", "this list", print_help},
      {"version", 0, "", "er_print's version (also -V, --version)",
       [](Session& s, const auto&) { s.out() << "er_print (lumen) " << LUMEN_VERSION << "\n"; }},
      {"quit", 0, "", "leave er_print (also exit)", [](Session&, const auto&) { throw QuitRequest(); }},
      {"exit", 0, "", "leave er_print", [](Session&, const auto&) { throw QuitRequest(); }},
  };
  for (Command& c : gprofng_commands(commands)) commands.push_back(std::move(c));
  return commands;
  }();
  return commands;
}

std::optional<Command> find_command(const std::string& name, const AnalysisPlugins& plugins) {
  for (const Command& c : command_table())
    if (c.name == name) return c;
  if (std::optional<Command> view = plugin_view_command(name, plugins)) return view;
  for (const Command& c : refused_commands())
    if (c.name == name) return c;
  return std::nullopt;
}

}  // namespace lumen::er_print
