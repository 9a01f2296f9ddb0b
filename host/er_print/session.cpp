#include "session.h"

#include <algorithm>
#include <strings.h>

#include <filesystem>
#include <iostream>
#include <ostream>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

#include "default_metrics.h"
#include "experiment_format.h"
#include "experiment_hosts.h"
#include "experiment_metrics.h"
#include "format_error.h"
#include "metric_spec.h"

namespace lumen::er_print {

using namespace analysis;

Session::Session(AnalysisPlugins plugins, std::ostream& out) : plugins_(std::move(plugins)), out_(out) {}

namespace {

// -en_desc: "on", "off", or "=REGEX" matched against the lineage and the
// program's file name.
bool descendant_wanted(const std::string& mode, const Experiment& experiment) {
  if (mode == "on") return true;
  if (mode == "off") return false;
  const std::string lineage = experiment.header()["lineage"].as<std::string>("");
  std::string program;
  if (const YAML::Node command = experiment.header()["command"]; command && command.IsSequence() && command.size() > 0)
    program = std::filesystem::path(command[0].as<std::string>("")).filename().string();
  const std::regex pattern(mode.substr(1));
  return std::regex_search(lineage, pattern) || std::regex_search(program, pattern);
}

}  // namespace

void Session::set_descendants(const std::string& mode) {
  if (mode != "on" && mode != "off" && (mode.empty() || mode[0] != '='))
    throw CommandError("en_desc takes on, off or =REGEX, not '" + mode + "'");
  try {
    std::regex check(mode[0] == '=' ? mode.substr(1) : "");
  } catch (const std::regex_error& e) {
    throw CommandError("en_desc: '" + mode.substr(1) + "' is not a regular expression: " + e.what());
  }
  descendants_ = mode;
  // Only those that came with their founder: a descendant opened by its
  // own path is what the user asked for.
  std::set<std::filesystem::path> founders;
  for (const auto& e : experiments_) founders.insert(e->path());
  const size_t before = experiments_.size();
  std::erase_if(experiments_, [&](const std::unique_ptr<Experiment>& e) {
    return founders.count(e->path().parent_path()) != 0 && !e->header()["lineage"].as<std::string>("").empty() &&
           !descendant_wanted(mode, *e);
  });
  if (experiments_.size() != before) experiments_changed();
}

void Session::drop_experiment(const std::string& id_or_path) {
  std::error_code ec;
  for (size_t i = 0; i < experiments_.size(); ++i) {
    const bool by_id = id_or_path == std::to_string(i + 1);
    const bool by_path = std::filesystem::equivalent(experiments_[i]->path(), id_or_path, ec);
    if (!by_id && !by_path) continue;
    // A founder takes its descendants (the directories inside it, opened
    // right after it) along.
    const std::filesystem::path founder = experiments_[i]->path();
    experiments_.erase(experiments_.begin() + static_cast<std::ptrdiff_t>(i));
    while (i < experiments_.size() && experiments_[i]->path().parent_path() == founder)
      experiments_.erase(experiments_.begin() + static_cast<std::ptrdiff_t>(i));
    experiments_changed();
    return;
  }
  throw CommandError("no open experiment is '" + id_or_path + "' (-exp_list gives their ids and paths)");
}

void Session::drop_all_experiments() {
  experiments_.clear();
  registry_ = MetricRegistry();  // nothing refers to the metrics any more
  experiments_changed();
}

void Session::set_disasm_threshold(const std::string& percent) {
  const double source = threshold_;
  set_threshold(percent);
  disasm_threshold_ = threshold_;
  threshold_ = source;
}

void Session::set_object_visibility(const std::string& list, std::optional<ObjectShow> mode) {
  if (!mode) visibility_.reset();
  else if (list.empty()) throw CommandError("name the load objects, separated by commas (all: every one)");
  else visibility_.set(list, *mode);
  selection_changed();
}

void Session::select_objects(const std::string& list) {
  if (list.empty()) throw CommandError("name the load objects whose functions are shown, separated by commas");
  visibility_.select(list);
  selection_changed();
}

void Session::define_index_type(const std::string& name, const std::string& expression) {
  for (const IndexObjectType& type : index_types_)
    if (type.name == name) throw CommandError("index object type '" + name + "' is defined already");
  try {
    index_types_.push_back({name, name, EventExpression::parse(expression), false});
  } catch (const ExpressionError& e) {
    throw CommandError(e.what());
  }
}

const IndexObjectType& Session::index_type(const std::string& name) const {
  std::string known;
  for (const IndexObjectType& type : index_types_) {
    if (strcasecmp(type.name.c_str(), name.c_str()) == 0) return type;
    known += (known.empty() ? "" : ", ") + type.name;
  }
  throw CommandError("no index object type '" + name + "' (known: " + known + ")");
}

void Session::open_experiment(const std::string& path) {
  experiments_.push_back(std::make_unique<Experiment>(path, plugins_));
  register_metrics(*experiments_.back(), registry_);
  // A founder's descendants (sub-experiments named by lineage) come with it.
  std::vector<std::filesystem::path> descendants;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec))
    if (entry.is_directory() && entry.path().extension() == ".er" && entry.path().filename().string()[0] == '_')
      descendants.push_back(entry.path());
  std::sort(descendants.begin(), descendants.end());
  // A descendant that cannot be read is left out, and said so; the founder
  // and the others are still analysed.
  Experiment& founder = *experiments_.back();
  for (const auto& descendant : descendants) {
    try {
      auto experiment = std::make_unique<Experiment>(descendant, plugins_);
      if (!descendant_wanted(descendants_, *experiment)) continue;
      register_metrics(*experiment, registry_);
      experiments_.push_back(std::move(experiment));
    } catch (const FormatError& e) {
      founder.add_warning("descendant " + descendant.filename().string() + " is left out: " + e.what());
    }
  }
  // Ranks on other hosts run on their hosts' clocks: each is placed on the
  // clock of the founder, or of a job founder's first rank.
  size_t founder_index = 0;
  while (experiments_[founder_index].get() != &founder) ++founder_index;
  const std::filesystem::path reference_path = clock_reference(path, founder.header(), descendants);
  const Experiment* reference = &founder;
  for (size_t i = founder_index; i < experiments_.size(); ++i)
    if (experiments_[i]->path() == reference_path) reference = experiments_[i].get();
  for (size_t i = founder_index; i < experiments_.size(); ++i) experiments_[i]->place_on_clock_of(*reference);
  // A job's founder made by its ranks (collect run once per rank) says how
  // many there were: a rank whose experiment is not there is missing.
  if (const YAML::Node job = founder.header()["job"]; job && job.IsMap()) {
    const long ranks = job["ranks"].as<long>(0);
    std::string missing;
    for (long rank = 0; rank < ranks && rank < 1'000'000; ++rank)
      if (!std::filesystem::is_directory(std::filesystem::path(path) / ("_rank" + std::to_string(rank) + ".er"), ec))
        missing += (missing.empty() ? "" : ", ") + std::to_string(rank);
    if (!missing.empty())
      founder.add_warning("the job had " + std::to_string(ranks) + " ranks, but rank " + missing +
                          " recorded no experiment here (_rankN.er): its figures are missing");
  }
  experiments_changed();
}

void Session::set_metrics(const std::string& spec) {
  try {
    parse_metric_spec(spec, registry_);  // checked now, so the error names this command
  } catch (const SpecError& e) {
    throw CommandError(e.what());
  }
  metric_spec_ = spec;
}

void Session::set_sort(const std::string& spec) {
  try {
    std::stringstream items(spec);
    for (std::string item; std::getline(items, item, ':');)
      if (!item.empty()) parse_sort_spec(item, registry_);  // each checked now, so the error names this command
  } catch (const SpecError& e) {
    throw CommandError(e.what());
  }
  sort_spec_ = spec;
}

void Session::set_limit(const std::string& count) {
  char* end = nullptr;
  const long long n = std::strtoll(count.c_str(), &end, 10);
  if (count.empty() || *end != '\0' || n < 0) throw CommandError("limit takes a count of rows (0: no limit), not '" + count + "'");
  limit_ = n == 0 ? std::nullopt : std::optional<size_t>(static_cast<size_t>(n));
}

size_t Session::plugin_row_limit() const {
  if (!plugin_row_cap_) return limit_.value_or(0);
  return limit_ ? std::min(*limit_, *plugin_row_cap_) : *plugin_row_cap_;
}

void Session::set_format(const std::string& format) {
  flush_views();
  if (format == "text") format_ = OutputFormat::Text;
  else if (format == "csv") format_ = OutputFormat::Csv;
  else if (format == "json") format_ = OutputFormat::Json;
  else throw CommandError("unknown format '" + format + "'; allowed: text, csv, json");
}

void Session::set_name_style(const std::string& style) {
  // STYLE[:soname|:nosoname], as gprofng spells it; either part may be left out.
  const size_t colon = style.find(':');
  const std::string word = style.substr(0, colon);
  const std::string suffix = colon == std::string::npos ? "" : style.substr(colon + 1);
  const auto refuse = [&] {
    return CommandError("unknown name style '" + style + "'; allowed: long, short, mangled, each optionally "
                        "followed by :soname or :nosoname");
  };
  NameStyle chosen = structure_.name_style();
  if (word == "long") chosen = NameStyle::Long;
  else if (word == "short") chosen = NameStyle::Short;
  else if (word == "mangled") chosen = NameStyle::Mangled;
  else if (!word.empty() || colon == std::string::npos) throw refuse();
  if (suffix == "soname" || suffix == "shared_object_name") structure_.show_object_names(true);
  else if (suffix == "nosoname" || suffix == "no_shared_object_name") structure_.show_object_names(false);
  else if (colon != std::string::npos) throw refuse();
  structure_.set_name_style(chosen);
  readings_.forget();  // names a plugin resolved
}

void Session::set_viewmode(const std::string& mode) {
  // Plugins whose frames a mode shows differently (Java, OpenMP) fold them;
  // other stacks look the same in every mode.
  const auto parsed = analysis::parse_view_mode(mode);
  if (!parsed) throw CommandError("unknown view mode '" + mode + "'; allowed: user, expert, machine");
  if (*parsed == viewmode_) return;
  viewmode_ = *parsed;
  selection_changed();
}

void Session::set_threshold(const std::string& percent) {
  char* end = nullptr;
  const double value = std::strtod(percent.c_str(), &end);
  if (percent.empty() || *end != '\0' || value < 0 || value > 100)
    throw CommandError("sthresh takes a percentage from 0 to 100, not '" + percent + "'");
  threshold_ = value;
}

void Session::select_threads(const std::string& list) {
  try {
    selects_.threads = NumberList::parse(list, "thread list");
  } catch (const SelectionError& e) {
    throw CommandError(e.what());
  }
  selection_changed();
}

void Session::select_samples(const std::string& list) {
  try {
    selects_.samples = NumberList::parse(list, "sample list");
  } catch (const SelectionError& e) {
    throw CommandError(e.what());
  }
  selection_changed();
}

void Session::select_cpus(const std::string& list) {
  try {
    selects_.cpus = NumberList::parse(list, "CPU list");
  } catch (const SelectionError& e) {
    throw CommandError(e.what());
  }
  selection_changed();
}

void Session::select_ranks(const std::string& list) {
  try {
    selects_.ranks = NumberList::parse(list, "rank list");
  } catch (const SelectionError& e) {
    throw CommandError(e.what());
  }
  selection_changed();
}

void Session::select_hosts(const std::string& list) {
  const ExperimentHosts hosts = experiment_hosts(experiments_);
  std::string numbers;
  std::stringstream items(list);
  std::string item;
  while (std::getline(items, item, ',')) {
    const bool numeric = !item.empty() && item.find_first_not_of("0123456789-") == std::string::npos;
    if (!numeric && item != "all") {
      const auto at = std::find(hosts.names.begin(), hosts.names.end(), item);
      if (at == hosts.names.end()) {
        std::string known;
        for (const std::string& name : hosts.names) known += (known.empty() ? "" : ", ") + name;
        throw CommandError("no experiment was recorded on host '" + item + "' (hosts: " +
                           (known.empty() ? "none named" : known) + ")");
      }
      item = std::to_string(at - hosts.names.begin() + 1);
    }
    numbers += (numbers.empty() ? "" : ",") + item;
  }
  try {
    selects_.hosts = NumberList::parse(numbers, "host list");
  } catch (const SelectionError& e) {
    throw CommandError(e.what());
  }
  selection_changed();
}

void Session::set_filters(const std::string& expression) {
  try {
    expression_ = parse_filter_expression(expression);
  } catch (const SelectionError& e) {
    throw CommandError(e.what());
  }
  expression_text_ = expression;
  selection_changed();
}

std::string Session::selection_text() const {
  std::string text;
  if (selects_.threads) text += " threads " + selects_.threads->text();
  if (selects_.samples) text += " samples " + selects_.samples->text();
  if (selects_.cpus) text += " cpus " + selects_.cpus->text();
  if (selects_.ranks) text += " ranks " + selects_.ranks->text();
  if (selects_.hosts) text += " hosts " + selects_.hosts->text();
  if (!expression_text_.empty()) text += " filters '" + expression_text_ + "'";
  return text.empty() ? "all events" : text.substr(1);
}

void Session::set_output(const std::string& file, bool append) {
  flush_views();
  if (file_) file_->out.flush();
  if (file == "-") {
    file_.reset();
    return;
  }
  auto output = std::make_unique<OutputFile>(file, append ? std::ios::app : std::ios::trunc);
  if (!output->file) throw CommandError("cannot write '" + file + "'");
  file_ = std::move(output);
}

void Session::selection_changed() {
  readings_.forget();
  profile_.reset();
  code_profile_.reset();
  each_.clear();
}

void Session::experiments_changed() {
  selection_changed();
  cells_.clear();
  shapers_.clear();
  profiled_once_ = false;
}

std::shared_ptr<StackShaper> Session::shaper(ViewMode mode, bool inline_frames) {
  auto& kept = shapers_[{mode, inline_frames}];
  if (!kept) kept = std::make_shared<StackShaper>(experiments_, structure_, mode, inline_frames);
  return kept;
}

std::unique_ptr<StackProfile> Session::profile_from_cells(const EventFilter& only) {
  // The first profile of a session is a pass over the files: a session
  // asked for one selection only (er_print -functions) never pays for cells.
  // Nor does a stretch of time: its pass reads only the blocks holding it.
  if (!EventCells::can_select({selects_, expression_}) || (cells_.empty() && !profiled_once_) ||
      (cells_.empty() && time_window().bounded()))
    return nullptr;
  const std::optional<StackAggregate> aggregate =
      cells().select({selects_, expression_}, only, SampledParts(experiments_, registry_));
  if (!aggregate) return nullptr;
  return std::make_unique<StackProfile>(*aggregate, shaper(viewmode_, inline_frames_), registry_, structure_,
                                        stack_filter(expression_, structure_), visibility_.rewrite(structure_));
}

std::optional<ViewMode> Session::cells_key() {
  bool stitched = false;
  const std::shared_ptr<StackShaper> shaped = shaper(viewmode_, inline_frames_);
  for (size_t e = 0; e < experiments_.size(); ++e) stitched = stitched || shaped->stitches_in(e);
  // Cells of a mode no plugin stitches in hold no chain: any such mode's.
  return stitched ? std::optional<ViewMode>(viewmode_) : std::nullopt;
}

EventCells& Session::cells() {
  std::unique_ptr<EventCells>& cells = cells_[cells_key()];
  if (!cells || cells->metric_count() != registry_.size())
    cells = std::make_unique<EventCells>(experiments_, registry_, *shaper(viewmode_, inline_frames_));
  return *cells;
}

// A lookup only: an empty entry would count as cells made (profile_from_cells).
bool Session::events_decoded() {
  const auto kept = cells_.find(cells_key());
  return kept != cells_.end() && kept->second && kept->second->metric_count() == registry_.size();
}

uint64_t Session::timeline_bin_ns() { return cells().bin_ns(); }

std::vector<TimelineBin> Session::timeline(const LeafRank& rank) {
  if (!expression_.functions.empty())
    throw CommandError("-timeline cannot apply the filter 'function == " + expression_.functions.front() +
                       "' (its bins hold every stack of a thread); drop that clause with -filters");
  if (!EventCells::can_select({selects_, expression_}))
    throw CommandError("-timeline cannot choose events by CPU or by TSTAMP (its bins hold every CPU and time of a "
                       "thread); use -cpu_select all and time bounds");
  std::optional<std::vector<TimelineBin>> bins =
      thread_timeline(cells(), {selects_, expression_}, SampledParts(experiments_, registry_),
                      *shaper(viewmode_, inline_frames_), rank);
  if (!bins)
    throw CommandError("-timeline: a time bound of the selection lies inside a bin (" +
                       std::to_string(cells().bin_ns() / 1000) + " us wide from each experiment's start)");
  return std::move(*bins);
}

void Session::set_inline(const std::string& on_off) {
  if (on_off != "on" && on_off != "off") throw CommandError("inline takes on or off, not '" + on_off + "'");
  inline_frames_ = on_off == "on";
  selection_changed();
}

void Session::set_compare(const std::string& mode) {
  try {
    compare_ = parse_compare_mode(mode);
  } catch (const std::invalid_argument& e) {
    throw CommandError(e.what());
  }
}

EventFilter Session::selection_filter(bool cpus) const {
  EventSelection lists = selects_, expression = expression_;
  if (!cpus) {
    lists.cpus.reset();
    expression.cpus.reset();
  }
  const EventFilter by_lists = event_filter(lists, experiments_);
  const EventFilter by_expression = event_filter(expression, experiments_);
  if (by_lists && by_expression)
    return [by_lists, by_expression](size_t e, const lumen_event& event) { return by_lists(e, event) && by_expression(e, event); };
  return by_lists ? by_lists : by_expression;
}

std::vector<std::string> Session::record_view_notes(const std::string& view) const {
  try {
    std::vector<std::string> notes = analysis::record_selection_notes(view, selects_);
    for (std::string& note : analysis::record_selection_notes(view, expression_)) notes.push_back(std::move(note));
    return notes;
  } catch (const SelectionError& e) {
    throw CommandError(e.what());
  }
}

std::unique_ptr<StackProfile> Session::profile_of(const std::vector<std::unique_ptr<analysis::Experiment>>& experiments,
                                                  const EventFilter& filter) {
  return std::make_unique<StackProfile>(experiments, registry_, structure_, filter, stack_filter(expression_, structure_),
                                        inline_frames_, viewmode_, visibility_.rewrite(structure_));
}

std::vector<const StackProfile*> Session::profiles_of_each() {
  if (each_.empty()) {
    profile();  // checks the selection
    const EventFilter filter = selection_filter();
    for (size_t k = 0; k < experiments_.size(); ++k) {
      // The same experiments (so ids and thread numbers agree); only k's events.
      const EventFilter only_k = [filter, k](size_t e, const lumen_event& event) {
        return e == k && (!filter || filter(e, event));
      };
      std::unique_ptr<StackProfile> of_k = profile_from_cells([k](size_t e, const lumen_event&) { return e == k; });
      if (!of_k)
        of_k = std::make_unique<StackProfile>(experiments_, registry_, structure_, only_k,
                                              stack_filter(expression_, structure_), inline_frames_, viewmode_,
                                              visibility_.rewrite(structure_), nullptr, time_window());
      each_.push_back(std::move(of_k));
    }
  }
  std::vector<const StackProfile*> list;
  for (const auto& p : each_) list.push_back(p.get());
  return list;
}

const StackProfile& Session::profile() {
  if (!profile_) {
    // An observer sees a pass over the files; otherwise the events decoded
    // once are summed again, unless the selection splits what was summed.
    const analysis::ProfileObserver* observer = std::exchange(observer_, nullptr);
    if (observer == nullptr) profile_ = profile_from_cells();
    if (!profile_)
      profile_ = std::make_unique<StackProfile>(experiments_, registry_, structure_, selection_filter(),
                                                stack_filter(expression_, structure_), inline_frames_, viewmode_,
                                                visibility_.rewrite(structure_), observer, time_window());
    profiled_once_ = true;
    const bool cpu_selected = selects_.selects_cpus() || expression_.selects_cpus();
    if (cpu_selected && profile_->events_read() > 0 && profile_->events_with_cpu() == 0) {
      profile_.reset();
      throw CommandError("the events of these experiments record no CPU, so -cpu_select cannot choose among them "
                         "(use -cpu_select all)");
    }
    if (profile_->events() == 0 && profile_->events_read() > 0 && !(selects_.selects_all() && expression_.selects_all()))
      explain_empty_selection();
    if (cpu_selected && profile_->events_with_cpu() < profile_->events_read())
      std::cerr << "er_print: " << profile_->events_read() - profile_->events_with_cpu() << " of "
                << profile_->events_read()
                << " events record no CPU (heap, synchronization, MPI tracing) and are all kept; the CPU list "
                   "chooses among the others\n";
  }
  return *profile_;
}

void Session::explain_empty_selection() {
  // A function clause naming no function at all is a mistake, said as
  // -fsingle says it; otherwise the selection is right and selects nothing.
  for (const std::string& name : expression_.functions) {
    bool known = false;
    for (FunctionId id = 0; id < structure_.function_count() && !known; ++id) known = is_named(structure_.function(id), name);
    if (!known) {
      profile_.reset();
      throw CommandError("-filters: no function named '" + name + "' is on any stack of these experiments (see "
                         "-functions; a name may be given without its namespace, class or parameters)");
    }
  }
  std::cerr << "er_print: the selection (" << selection_text() << ") leaves none of the " << profile_->events_read()
            << " events recorded: the views are empty\n";
}

const CodeProfile& Session::code_profile() {
  if (!code_profile_) code_profile_ = std::make_unique<CodeProfile>(profile(), experiments_, structure_);
  return *code_profile_;
}

void Session::emit(const std::string& rendered) {
  if (format_ == OutputFormat::Json) held_json_.push_back(rendered);
  else out() << rendered;
}

void Session::flush_views() {
  if (held_json_.size() == 1) {
    out() << held_json_.front();
  } else if (held_json_.size() > 1) {
    out() << "{\"views\": [\n";
    for (size_t i = 0; i < held_json_.size(); ++i) {
      std::string document = held_json_[i];
      while (!document.empty() && document.back() == '\n') document.pop_back();
      out() << document << (i + 1 < held_json_.size() ? ",\n" : "\n");
    }
    out() << "]}\n";
  }
  held_json_.clear();
  out().flush();
}

std::string Session::metrics_in_force() const {
  if (metric_spec_) return *metric_spec_;
  return default_metric_spec_from(default_metrics_, registry_).value_or(default_metric_spec(registry_));
}

ViewRequest Session::view_request() const {
  ViewRequest request;
  std::optional<std::string> metrics = metric_spec_;
  if (!metrics) metrics = default_metric_spec_from(default_metrics_, registry_);
  request.metrics = parse_metric_spec(metrics.value_or(default_metric_spec(registry_)), registry_);
  // Only a column shown sorts: the sort command's first item shown, else the
  // defaults file's, else the first column.
  std::optional<SortKey> sort;
  if (sort_spec_) sort = visible_sort_key(*sort_spec_, request.metrics, registry_);
  if (!sort)
    if (const auto spec = default_sort_spec_from(default_sort_, registry_, request.metrics))
      sort = parse_sort_spec(*spec, registry_);
  if (sort) {
    request.sort = *sort;
  } else if (!request.metrics.columns.empty()) {
    request.sort.flavor = request.metrics.columns.front().flavor;
    request.sort.metric = request.metrics.columns.front().metric;
  } else {
    request.sort.by_name = true;
  }
  request.limit = limit_;
  return request;
}

}  // namespace lumen::er_print
