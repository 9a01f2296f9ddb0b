// The rest of gprofng's command table, with gprofng's meanings.
#include <sys/resource.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "code_views.h"
#include "command_table.h"
#include "experiment_views.h"
#include "fragment_view.h"
#include "function_summary_views.h"
#include "header_view.h"
#include "index_objects.h"
#include "selection_lists.h"

namespace lumen::er_print {

using namespace analysis;

namespace {

using Arguments = std::vector<std::string>;

std::vector<SelectionCount> counts(Session& s, const std::string& selection,
                                   uint64_t (*total)(const Experiment&)) {
  std::vector<SelectionCount> list;
  for (const auto& e : s.experiments()) list.push_back({selection, total(*e)});
  return list;
}

// The selection text of one kind ("threads 1-2" in selection_text()).
std::string selected(Session& s, const std::string& kind) {
  const std::string text = s.selection_text();
  const size_t at = text.find(kind + " ");
  if (at == std::string::npos) return "all";
  const size_t from = at + kind.size() + 1;
  return text.substr(from, text.find(' ', from) - from);
}

// A com_spec of -cc, -scc, -dcc: gprofng's classes of compiler commentary
// and its listing options, separated by ':' or ','.
void annotation_options(Session& s, const std::string& spec, bool source, bool disasm) {
  std::stringstream in(spec);
  std::vector<std::string> not_offered;
  const char separator = spec.find(':') != std::string::npos ? ':' : ',';
  for (std::string word; std::getline(in, word, separator);) {
    if (word.rfind("threshold=", 0) == 0) {
      if (source) s.set_threshold(word.substr(10));
      if (disasm) s.set_disasm_threshold(word.substr(10));
      continue;
    }
    static const char* const kClasses[] = {"b", "r", "p", "l", "s", "i", "m", "f", "c", "h", "q",
                                           "all", "none", "basic", "version", "warn", "parallel", "query",
                                           "loop", "pipe", "inline", "memops", "fe", "codegen",
                                           "src", "asrc", "nosrc", "hex", "nohex", "cf"};
    if (std::find(std::begin(kClasses), std::end(kClasses), word) == std::end(kClasses))
      throw CommandError("'" + word + "' is not a commentary class or listing option (threshold=N, src, nosrc, hex, "
                         "nohex, basic, all, none, ...)");
    not_offered.push_back(word);
  }
  if (!not_offered.empty()) {
    std::string words;
    for (const std::string& w : not_offered) words += (words.empty() ? "" : ", ") + w;
    const std::string why = words + ": compiler commentary is written by Oracle's compilers only (GCC and Clang "
                            "record none), and the listings' layout is fixed; only threshold=N applies";
    // Nothing applied: an error, which a defaults file reports with its line.
    if (not_offered.size() == static_cast<size_t>(std::count(spec.begin(), spec.end(), separator)) + 1)
      throw CommandError(why);
    std::cerr << "er_print: " << why << "\n";
  }
}

Command alias(const std::vector<Command>& base, const std::string& name, const std::string& of) {
  for (const Command& c : base)
    if (c.name == of) {
      Command copy = c;
      copy.name = name;
      copy.help = "the same as " + of;
      return copy;
    }
  throw std::logic_error("no command " + of);
}

template <typename Body>
std::function<void(Session&, const Arguments&)> view(Body body) {
  return [body](Session& s, const Arguments& a) {
    require_experiments(s);
    s.emit(body(s, a));
  };
}

// FUNC [#]: a stack fragment's entry (numbered_function).
std::string fragment_entry(const Arguments& a) {
  return a.size() > 1 ? numbered_function(a[0], function_number(a[1])) : a[0];
}

Command refusal(const std::string& name, const std::string& arguments, const std::string& reason) {
  return {name, arguments.empty() ? 0u : 1u, arguments, "not offered: " + reason,
          [name, reason](Session&, const Arguments&) { throw CommandError(name + ": not offered here: " + reason); }};
}

}  // namespace

size_t experiment_id(const std::string& text) {
  char* end = nullptr;
  const unsigned long long id = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || id == 0) throw CommandError("'" + text + "' is not an experiment id (1, 2, ...)");
  return static_cast<size_t>(id);
}

std::vector<Command> gprofng_commands(const std::vector<Command>& base) {
  std::vector<Command> commands = {
      {"sample_list", 0, "", "per experiment: the samples selected and how many there are",
       view([](Session& s, const Arguments&) {
         return render(selection_list("sample_list", "", counts(s, selected(s, "samples"), [](const Experiment& e) {
                                        return static_cast<uint64_t>(e.samples().samples().size());
                                      })),
                       s.format());
       })},
      {"lwp_list", 0, "", "per experiment: the LWPs (threads) selected and how many there are",
       view([](Session& s, const Arguments&) {
         return render(selection_list("lwp_list", "", counts(s, selected(s, "threads"), [](const Experiment& e) {
                                        return static_cast<uint64_t>(e.threads().size());
                                      })),
                       s.format());
       })},
      {"cpu_list", 0, "", "per experiment: the CPUs selected and how many the events recorded",
       view([](Session& s, const Arguments&) {
         return render(selection_list("cpu_list", "", counts(s, selected(s, "cpus"), cpus_recorded)), s.format());
       })},
      {"describe", 0, "", "the data each experiment recorded and the keywords -filters takes",
       view([](Session& s, const Arguments&) { return render(describe_view(s.experiments()), s.format()); })},
      {"psummary", 0, "", "a summary of each hot PC: its metrics, function and object",
       view([](Session& s, const Arguments&) {
         return render(table_as_summaries("psummary", pcs_view(s.code_profile(), s.structure(), s.registry(),
                                                               s.view_request())),
                       s.format());
       })},
      {"lsummary", 0, "", "a summary of each hot source line: its metrics, function and file",
       view([](Session& s, const Arguments&) {
         return render(table_as_summaries("lsummary", lines_view(s.code_profile(), s.structure(), s.registry(),
                                                                 s.view_request())),
                       s.format());
       })},
      {"cc", 1, "COM_SPEC", "listing options for source and disassembly (threshold=N)",
       [](Session& s, const Arguments& a) { annotation_options(s, a[0], true, true); }},
      {"scc", 1, "COM_SPEC", "listing options for source (threshold=N)",
       [](Session& s, const Arguments& a) { annotation_options(s, a[0], true, false); }},
      {"dcc", 1, "COM_SPEC", "listing options for disassembly (threshold=N)",
       [](Session& s, const Arguments& a) { annotation_options(s, a[0], false, true); }},
      {"dthresh", 1, "PERCENT", "mark disassembly lines at or above PERCENT of the hottest (as sthresh)",
       [](Session& s, const Arguments& a) { s.set_disasm_threshold(a[0]); }},
      {"cprepend", 1, "FUNC [#]", "put FUNC (#: which of several of that name) before the stack fragment and show callers-callees around it",
       view([](Session& s, const Arguments& a) {
         s.fragment().insert(s.fragment().begin(), fragment_entry(a));
         try {
           return render(stack_fragment_view(s.profile(), s.structure(), s.registry(), s.view_request(), s.fragment()),
                         s.format());
         } catch (const std::runtime_error&) {
           s.fragment().erase(s.fragment().begin());
           throw;
         }
       }),
       1},
      {"cappend", 1, "FUNC [#]", "put FUNC (#: which of several of that name) after the stack fragment and show callers-callees around it",
       view([](Session& s, const Arguments& a) {
         s.fragment().push_back(fragment_entry(a));
         try {
           return render(stack_fragment_view(s.profile(), s.structure(), s.registry(), s.view_request(), s.fragment()),
                         s.format());
         } catch (const std::runtime_error&) {
           s.fragment().pop_back();
           throw;
         }
       }),
       1},
      {"crmfirst", 0, "", "take the first function off the stack fragment and show what is left",
       view([](Session& s, const Arguments&) {
         if (s.fragment().empty()) throw CommandError("crmfirst: the stack fragment is empty");
         s.fragment().erase(s.fragment().begin());
         return s.fragment().empty() ? std::string("Stack fragment is empty\n")
                                     : render(stack_fragment_view(s.profile(), s.structure(), s.registry(),
                                                                  s.view_request(), s.fragment()),
                                              s.format());
       })},
      {"crmlast", 0, "", "take the last function off the stack fragment and show what is left",
       view([](Session& s, const Arguments&) {
         if (s.fragment().empty()) throw CommandError("crmlast: the stack fragment is empty");
         s.fragment().pop_back();
         return s.fragment().empty() ? std::string("Stack fragment is empty\n")
                                     : render(stack_fragment_view(s.profile(), s.structure(), s.registry(),
                                                                  s.view_request(), s.fragment()),
                                              s.format());
       })},
      {"object_show", 1, "OBJ,...", "show every function of these load objects (all: every object)",
       [](Session& s, const Arguments& a) { s.set_object_visibility(a[0], ObjectShow::Show); }},
      {"object_hide", 1, "OBJ,...", "fold the functions of these load objects into one row each",
       [](Session& s, const Arguments& a) { s.set_object_visibility(a[0], ObjectShow::Hide); }},
      {"object_api", 1, "OBJ,...", "show only the entry points of these load objects",
       [](Session& s, const Arguments& a) { s.set_object_visibility(a[0], ObjectShow::Api); }},
      {"objects_default", 0, "", "every load object shows all its functions again",
       [](Session& s, const Arguments&) { s.set_object_visibility("", std::nullopt); }},
      {"object_select", 1, "OBJ,...", "show the functions of these load objects only; hide the others",
       [](Session& s, const Arguments& a) { s.select_objects(a[0]); }},
      {"cmetric_list", 0, "", "the metrics callers-callees shows (attributed)",
       [](Session& s, const Arguments&) {
         s.emit(render(metric_list_of("cmetric_list", "Available callers-callees metrics:", s.registry(),
                                      LUMEN_FLAVOR_ATTRIBUTED),
                       s.format()));
       }},
      {"indx_metric_list", 0, "", "the metrics index objects show (exclusive)",
       [](Session& s, const Arguments&) {
         s.emit(render(metric_list_of("indx_metric_list", "Available index object metrics:", s.registry(),
                                      LUMEN_FLAVOR_EXCLUSIVE),
                       s.format()));
       }},
      {"printmode", 1, "text|csv|json|,", "how tables are printed (gprofng's ',' delimiter is CSV)",
       [](Session& s, const Arguments& a) {
         if (a[0] == ",") return s.set_format("csv");
         if (a[0] == "html") throw CommandError("printmode html: er_html writes HTML reports");
         if (a[0].size() == 1) throw CommandError("printmode '" + a[0] + "': the one delimiter offered is ',' (CSV)");
         s.set_format(a[0]);
       }},
      {"sample_detail", 0, "[EXP_ID]", "each sample with the process figures across it (of one experiment)",
       view([](Session& s, const Arguments& a) {
         if (a.empty()) return render(samples_view(s.experiments()), s.format());
         return s.with_experiment(experiment_id(a[0]),
                                  [&](const auto& one) { return render(samples_view(one), s.format()); });
       }),
       1},
      {"open_exp", 1, "EXPERIMENT", "drop every experiment, then open this one",
       [](Session& s, const Arguments& a) {
         s.drop_all_experiments();
         s.open_experiment(a[0]);
       }},
      {"add_exp", 1, "EXPERIMENT", "open this experiment too",
       [](Session& s, const Arguments& a) { s.open_experiment(a[0]); }},
      {"drop_exp", 1, "EXPERIMENT|ID", "close this experiment (and its descendants)",
       [](Session& s, const Arguments& a) { s.drop_experiment(a[0]); }},
      {"en_desc", 1, "on|off|=REGEX", "which descendant experiments are read (REGEX: lineage or program name)",
       [](Session& s, const Arguments& a) { s.set_descendants(a[0]); }},
      {"dmetrics", 1, "SPEC", "default metrics: apply where no metrics command was given",
       [](Session& s, const Arguments& a) { s.add_default_metrics(a[0]); }},
      {"dsort", 1, "SPEC", "default sort: applies where no sort command was given",
       [](Session& s, const Arguments& a) { s.add_default_sort(a[0]); }},
      {"procstats", 0, "", "what er_print itself used: CPU time, memory, experiments, functions",
       [](Session& s, const Arguments&) {
         rusage usage{};
         getrusage(RUSAGE_SELF, &usage);
         Record r;
         r.heading = "er_print";
         r.add_number("user_s", "User CPU time", usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6, {LUMEN_UNIT_NANOSECONDS});
         r.add_number("system_s", "System CPU time", usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6, {LUMEN_UNIT_NANOSECONDS});
         r.add_number("max_rss_kib", "Maximum resident set (KiB)", static_cast<double>(usage.ru_maxrss));
         r.add_number("experiments", "Experiments", static_cast<double>(s.experiments().size()));
         r.add_number("metrics", "Metrics", static_cast<double>(s.registry().size()));
         r.add_number("functions", "Functions known", static_cast<double>(s.structure().function_count()));
         r.add_number("load_objects", "Load objects known", static_cast<double>(s.structure().object_count()));
         s.emit(render(record_document("procstats", "Processing statistics:", {r}), s.format()));
       }},
      {"indxobj_list", 0, "", "the index object types: Threads, CPUs, Samples, Seconds, Hosts, Processes and those defined",
       [](Session& s, const Arguments&) { s.emit(render(index_object_list(s.index_types()), s.format())); }},
      {"indxobj_define", 2, "NAME EXPR", "define an index object type (EXPR over THRID, CPUID, SAMPLE, TSTAMP, EXPID)",
       [](Session& s, const Arguments& a) { s.define_index_type(a[0], a[1]); }},
      {"indxobj", 1, "NAME", "the events grouped by an index object type, with their metrics",
       view([](Session& s, const Arguments& a) {
         s.profile();  // checks the selection
         return render(index_object_view(s.index_type(a[0]), s.experiments(), s.registry(), s.view_request(),
                                         s.export_filter()),
                       s.format());
       })},
      alias(base, "experiment_list", "exp_list"),
      alias(base, "gprof", "callers-callees"),
      alias(base, "ctree", "calltree"),
      alias(base, "lwp_select", "thread_select"),
  };
  commands.push_back(alias(commands, "gmetric_list", "cmetric_list"));
  return commands;
}

const std::vector<Command>& refused_commands() {
  static const std::vector<Command> commands = {
      refusal("deadlocks", "", "deadlock detection needs Oracle's thread analyzer data (collect -r), which Linux "
                               "compilers and this collector do not record"),
      refusal("dsummary", "ID|all", "deadlock detection needs Oracle's thread analyzer data (collect -r), which "
                                    "this collector does not record"),
      refusal("ifreq", "", "instruction frequencies need Oracle's count data (collect -c), which needs binary "
                           "instrumentation this collector does not do"),
      refusal("preload_libdirs", "DIRS", "it places gprofng's own collector libraries; collect finds lumen's itself"),
      refusal("ioactivity", "", "the I/O tracing plugin (io, collect -i on) is not installed with this er_print"),
      refusal("iodetail", "", "the I/O tracing plugin (io, collect -i on) is not installed with this er_print"),
      refusal("iocallstack", "", "the I/O tracing plugin (io, collect -i on) is not installed with this er_print"),
      refusal("iostat", "", "the I/O tracing plugin (io, collect -i on) is not installed with this er_print"),
  };
  return commands;
}

}  // namespace lumen::er_print
