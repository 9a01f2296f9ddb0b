// An er_print session: the experiments, the settings that commands change
// (metrics, sort, limit, names, output format and file, event selection,
// source paths), and the profiles built from them, rebuilt only when
// something they depend on changes.
#pragma once

#include <fstream>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "code_profile.h"
#include "event_cells.h"
#include "compare_view.h"
#include "event_selection.h"
#include "experiment.h"
#include "index_objects.h"
#include "metric_registry.h"
#include "object_visibility.h"
#include "plugin_readings.h"
#include "stack_profile.h"
#include "thread_timeline.h"
#include "terminal_text.h"
#include "program_structure.h"
#include "source_paths.h"
#include "structure_views.h"
#include "view_table.h"

namespace lumen::er_print {

struct CommandError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Session {
 public:
  Session(analysis::AnalysisPlugins plugins, std::ostream& out);

  void open_experiment(const std::string& path);  // throws FormatError
  // -drop_exp: by id (as -exp_list numbers them) or path, with its
  // descendants; -open_exp drops them all first.
  void drop_experiment(const std::string& id_or_path);
  void drop_all_experiments();
  // -en_desc on|off|=REGEX: which descendants come with a founder (REGEX
  // matches the lineage or the program name); applies to those open too.
  void set_descendants(const std::string& mode);
  // Runs `body` on experiment `id` alone (1-based), as views take them.
  template <typename Body>
  auto with_experiment(size_t id, Body body);
  const std::vector<std::unique_ptr<analysis::Experiment>>& experiments() const { return experiments_; }

  void set_metrics(const std::string& spec);
  void set_sort(const std::string& spec);
  // dmetrics and dsort lines of a defaults file: they accumulate, and apply
  // where no metrics or sort command was given (default_metrics.h).
  void add_default_metrics(const std::string& spec) { default_metrics_.push_back(spec); }
  void add_default_sort(const std::string& spec) { default_sort_.push_back(spec); }
  // The metric list and sort views use now: the metrics or sort command's,
  // else the defaults file's dmetrics or dsort, else er_print's default
  // (the sort: empty, the first column shown).
  std::string metrics_in_force() const;
  std::string sort_in_force() const { return sort_spec_.value_or(""); }
  void set_limit(const std::string& count);
  // The most rows a plugin's view lists in each table, whatever the limit:
  // what a page can hold (the analyzer's), none by default.
  void cap_plugin_rows(size_t rows) { plugin_row_cap_ = rows; }
  // The row limit a plugin's view gets: the limit, within the cap; 0: none.
  size_t plugin_row_limit() const;
  void set_format(const std::string& format);
  void set_name_style(const std::string& style);
  void set_viewmode(const std::string& mode);
  analysis::ViewMode viewmode() const { return viewmode_; }
  void set_threshold(const std::string& percent);
  double threshold() const { return threshold_; }
  // -dthresh: the disassembly's own threshold (the source's until set).
  void set_disasm_threshold(const std::string& percent);
  double disasm_threshold() const { return disasm_threshold_.value_or(threshold_); }
  analysis::OutputFormat format() const { return format_; }

  // -thread_select, -sample_select, -cpu_select, -filters.
  void select_threads(const std::string& list);
  void select_samples(const std::string& list);
  void select_cpus(const std::string& list);
  void select_ranks(const std::string& list);
  // Host numbers (-host_list) or names, comma separated; "all".
  void select_hosts(const std::string& list);
  void set_filters(const std::string& expression);
  // What the current selection is, for -describe style messages.
  std::string selection_text() const;

  // -object_show, -object_hide, -object_api, -object_select, -objects_default.
  void set_object_visibility(const std::string& list, std::optional<analysis::ObjectShow> mode);
  void select_objects(const std::string& list);
  const analysis::ObjectVisibility& object_visibility() const { return visibility_; }

  // The stack fragment of -cprepend, -cappend, -crmfirst, -crmlast.
  std::vector<std::string>& fragment() { return fragment_; }

  // Index object types: the predefined ones and -indxobj_define's.
  const std::vector<analysis::IndexObjectType>& index_types() const { return index_types_; }
  void define_index_type(const std::string& name, const std::string& expression);
  const analysis::IndexObjectType& index_type(const std::string& name) const;

  // -inline on|off: functions inlined at a PC as frames of their own.
  void set_inline(const std::string& on_off);

  // -compare: experiments side by side in -functions.
  void set_compare(const std::string& mode);
  analysis::CompareMode compare() const { return compare_; }
  // One profile per experiment, with the same selection as profile().
  std::vector<const analysis::StackProfile*> profiles_of_each();

  // Output to a file (-outfile, -appendfile; "-" is standard output again).
  void set_output(const std::string& file, bool append);

  // A rendered view. In JSON, the views up to the next flush_views() become
  // one document: the view itself when there is one, {"views": [...]} when
  // there are several, so a parser reads one invocation's output whole.
  void emit(const std::string& rendered);
  // Writes the views held back (when the output or format changes, after
  // each line at the prompt, and at the end).
  void flush_views();

  analysis::SourcePaths& source_paths() { return source_paths_; }

  const analysis::StackProfile& profile();
  // The next build of profile() reports its pass over the events to
  // `observer` (er_html bins its timeline from it, decoding nothing twice);
  // later builds do not. Null forgets it.
  void observe_next_profile(const analysis::ProfileObserver* observer) { observer_ = observer; }
  // Whether -filters drops stacks by their functions (after the pass).
  bool filters_stacks() const { return static_cast<bool>(analysis::stack_filter(expression_, structure_)); }
  // A profile of other experiments (one of the session's, alone) under the
  // session's stack filter, view mode and object visibility.
  std::unique_ptr<analysis::StackProfile> profile_of(
      const std::vector<std::unique_ptr<analysis::Experiment>>& experiments, const analysis::EventFilter& filter);
  const analysis::CodeProfile& code_profile();
  // Each thread's selected events by time bin, from the cells (made now if
  // need be), the leaf of each ranked by `rank`; and the bins' width.
  std::vector<analysis::TimelineBin> timeline(const analysis::LeafRank& rank);
  uint64_t timeline_bin_ns();
  // Decodes the events into cells for the current view mode and metrics
  // now, unless they are already: later changes of selection (threads,
  // samples, filters, whole stretches of time) and the timeline are then
  // summed from them, no file read again. An interactive caller does it
  // while it waits for its user; er_print does it at its second selection.
  void decode_events() { cells(); }
  // Whether that is done for the current view mode and metrics.
  bool events_decoded();
  analysis::ViewRequest view_request() const;
  const analysis::ProgramStructure& structure() const { return structure_; }
  analysis::ProgramStructure& structure() { return structure_; }
  const analysis::AnalysisPlugins& plugins() const { return plugins_; }
  std::optional<size_t> limit() const { return limit_; }
  const analysis::MetricRegistry& registry() const { return registry_; }
  std::ostream& out() { return file_ ? file_->out : out_; }
  // The profile of the current selection when one is built already and
  // selects what plugins' views select (no CPU list, no function filter):
  // their sums per stack then need no record read again. Null otherwise.
  const analysis::StackProfile* decoded_profile() const {
    if (selects_.selects_cpus() || expression_.selects_cpus() || filters_stacks()) return nullptr;
    return profile_.get();
  }
  // What plugins' views read under the current selection and asked to keep.
  analysis::PluginReadings* plugin_readings() { return &readings_; }
  // The selection as plugins' views apply it to their records (no CPU).
  analysis::EventFilter record_filter() const { return selection_filter(false); }
  // What such a view says of the selection it cannot apply; throws
  // CommandError naming a filter it refuses.
  std::vector<std::string> record_view_notes(const std::string& view) const;
  // The selection as profile() applies it to events (-export walks them).
  analysis::EventFilter export_filter() const { return selection_filter(true); }
  // The time the selection keeps events from, at most.
  analysis::TimeWindow time_window() const { return analysis::time_window(selects_, expression_); }

 private:
  void selection_changed();
  // The experiments open changed: what was decoded of them is forgotten.
  void experiments_changed();
  // The profile of the events `only` and the selection choose, summed from
  // the cells (event_cells.h); null when the selection splits a cell.
  std::unique_ptr<analysis::StackProfile> profile_from_cells(const analysis::EventFilter& only = {});
  std::shared_ptr<analysis::StackShaper> shaper(analysis::ViewMode mode, bool inline_frames);
  analysis::EventCells& cells();
  // Which of cells_ holds the current view mode's cells.
  std::optional<analysis::ViewMode> cells_key();
  // The selection left no event: says why (throws for a function filter
  // naming no function).
  void explain_empty_selection();
  // With `cpus` false, -cpu_select is left out (for records that carry no CPU).
  analysis::EventFilter selection_filter(bool cpus = true) const;

  // A file -outfile names, written as printable text like the terminal.
  struct OutputFile {
    OutputFile(const std::string& path, std::ios::openmode mode) : file(path, mode) {}
    std::ofstream file;
    PrintableTextBuffer text{file.rdbuf()};
    std::ostream out{&text};
  };

  analysis::AnalysisPlugins plugins_;
  // After plugins_: freed by their plugins' code before it is unloaded.
  analysis::PluginReadings readings_;
  std::ostream& out_;
  std::unique_ptr<OutputFile> file_;
  std::vector<std::string> held_json_;  // views emitted since the last flush_views()
  analysis::MetricRegistry registry_;
  analysis::ProgramStructure structure_;
  std::vector<std::unique_ptr<analysis::Experiment>> experiments_;
  std::optional<std::string> metric_spec_;
  std::optional<std::string> sort_spec_;
  std::vector<std::string> default_metrics_;
  std::vector<std::string> default_sort_;
  std::optional<size_t> limit_;
  std::optional<size_t> plugin_row_cap_;
  analysis::OutputFormat format_ = analysis::OutputFormat::Text;
  analysis::ViewMode viewmode_ = analysis::ViewMode::User;
  double threshold_ = 75.0;
  std::optional<double> disasm_threshold_;
  analysis::ObjectVisibility visibility_;
  std::vector<std::string> fragment_;
  std::vector<analysis::IndexObjectType> index_types_ = analysis::predefined_index_objects();
  std::string descendants_ = "on";
  analysis::EventSelection selects_;     // -thread_select, -sample_select, -cpu_select
  analysis::EventSelection expression_;  // -filters
  std::string expression_text_;
  analysis::SourcePaths source_paths_;
  std::unique_ptr<analysis::StackProfile> profile_;
  const analysis::ProfileObserver* observer_ = nullptr;
  std::unique_ptr<analysis::CodeProfile> code_profile_;
  analysis::CompareMode compare_ = analysis::CompareMode::Off;
  bool inline_frames_ = false;
  std::vector<std::unique_ptr<analysis::StackProfile>> each_;
  // The events decoded once: per view mode in which a plugin stitches
  // stacks (their chains differ by mode), and one (no mode) for the modes
  // with none; and the shapers of the stacks, by mode and inlining.
  std::map<std::optional<analysis::ViewMode>, std::unique_ptr<analysis::EventCells>> cells_;
  std::map<std::pair<analysis::ViewMode, bool>, std::shared_ptr<analysis::StackShaper>> shapers_;
  bool profiled_once_ = false;  // since the experiments changed
};

template <typename Body>
auto Session::with_experiment(size_t id, Body body) {
  if (id == 0 || id > experiments_.size())
    throw CommandError("no experiment " + std::to_string(id) + " (-exp_list numbers them 1 to " +
                       std::to_string(experiments_.size()) + ")");
  // The views take a list of experiments: lend them a list of this one.
  std::vector<std::unique_ptr<analysis::Experiment>> one;
  one.push_back(std::move(experiments_[id - 1]));
  struct GiveBack {
    std::vector<std::unique_ptr<analysis::Experiment>>& from;
    std::unique_ptr<analysis::Experiment>& to;
    ~GiveBack() { to = std::move(from.front()); }
  } give_back{one, experiments_[id - 1]};
  return body(static_cast<const std::vector<std::unique_ptr<analysis::Experiment>>&>(one));
}

}  // namespace lumen::er_print
