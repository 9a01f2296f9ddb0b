#include "event_selection.h"

#include <algorithm>
#include <cctype>
#include <regex>
#include <sstream>

#include "experiment_hosts.h"

namespace lumen::analysis {

namespace {

std::string trimmed(const std::string& text) {
  const size_t a = text.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return text.substr(a, text.find_last_not_of(" \t") - a + 1);
}

uint64_t parse_number(const std::string& text, const std::string& what, const std::string& whole) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); }))
    throw SelectionError("'" + whole + "' is not a " + what + " (numbers and ranges like 1,3-5, or all)");
  return std::stoull(text);
}

double parse_seconds(const std::string& text, const std::string& clause) {
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || value < 0)
    throw SelectionError("'" + text + "' in '" + clause + "' is not a time in seconds");
  return value;
}

std::string lowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

NumberList NumberList::parse(const std::string& text, const std::string& what) {
  NumberList list;
  list.text_ = trimmed(text);
  if (list.text_ == "all") {
    list.all_ = true;
    return list;
  }
  if (list.text_.empty()) throw SelectionError("an empty " + what + " (numbers and ranges like 1,3-5, or all)");
  std::stringstream items(list.text_);
  std::string item;
  while (std::getline(items, item, ',')) {
    item = trimmed(item);
    const size_t dash = item.find('-');
    const uint64_t from = parse_number(trimmed(item.substr(0, dash)), what, list.text_);
    const uint64_t to = dash == std::string::npos ? from : parse_number(trimmed(item.substr(dash + 1)), what, list.text_);
    if (to < from) throw SelectionError("range '" + item + "' in the " + what + " runs backwards");
    list.ranges_.emplace_back(from, to);
  }
  return list;
}

bool NumberList::contains(uint64_t n) const {
  if (all_) return true;
  return std::any_of(ranges_.begin(), ranges_.end(), [n](const auto& r) { return n >= r.first && n <= r.second; });
}

bool EventSelection::selects_all() const {
  auto all = [](const std::optional<NumberList>& l) { return !l || l->all(); };
  return all(threads) && all(samples) && all(cpus) && all(ranks) && all(hosts) && !from_s && !to_s &&
         functions.empty() && !expression;
}

namespace {

// Whether `text` is written in gprofng's syntax: it starts (after any '('
// or '!') with one of its tokens, or joins clauses with ||.
bool gprofng_syntax(const std::string& text) {
  if (text.find("||") != std::string::npos) return true;
  const size_t start = text.find_first_not_of("(! \t");
  if (start == std::string::npos) return false;
  size_t end = start;
  while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
  std::string word = text.substr(start, end - start);
  std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::toupper(c); });
  return word == "THRID" || word == "LWPID" || word == "CPUID" || word == "SAMPLE_MAP" || word == "TSTAMP" ||
         word == "EXPID" || word == "HOSTID" || word == "PID" || word == "FNAME";
}

// gprofng's expression: FNAME("f") SOME IN STACK clauses joined by && at the
// top become function filters; the rest is evaluated per event.
EventSelection parse_gprofng_filter(const std::string& text) {
  EventSelection selection;
  static const std::regex fname(R"re(^\(*\s*FNAME\s*\(\s*"([^"]*)"\s*\)\s+(SOME\s+)?IN\s+STACK\s*\)*$)re",
                                std::regex::icase);
  std::vector<std::string> rest;
  int depth = 0;
  bool quoted = false;
  size_t from = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    const char c = i < text.size() ? text[i] : '\0';
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (i < text.size() && !(depth == 0 && text.compare(i, 2, "&&") == 0)) continue;
    const std::string clause = trimmed(text.substr(from, i - from));
    std::smatch match;
    if (std::regex_match(clause, match, fname)) selection.functions.push_back(match[1]);
    else rest.push_back("(" + clause + ")");
    from = i + 2;
    ++i;
  }
  std::string joined;
  for (const std::string& clause : rest) joined += (joined.empty() ? "" : " && ") + clause;
  if (lowered(joined).find("fname") != std::string::npos)
    throw SelectionError("filter '" + text + "': FNAME(\"f\") SOME IN STACK works as a clause joined by && only");
  if (!joined.empty()) {
    try {
      selection.expression = EventExpression::parse(joined);
    } catch (const ExpressionError& e) {
      throw SelectionError(std::string("filter ") + e.what());
    }
  }
  return selection;
}

}  // namespace

EventSelection parse_filter_expression(const std::string& expression) {
  EventSelection selection;
  const std::string text = trimmed(expression);
  if (text.empty() || lowered(text) == "none" || lowered(text) == "all") return selection;
  if (gprofng_syntax(text)) return parse_gprofng_filter(text);
  size_t at = 0;
  while (at <= text.size()) {
    const size_t next = text.find("&&", at);
    const std::string clause = trimmed(text.substr(at, next == std::string::npos ? std::string::npos : next - at));
    at = next == std::string::npos ? text.size() + 1 : next + 2;
    std::istringstream words(clause);
    std::string key, op;
    words >> key >> op;
    std::string value;
    std::getline(words, value);
    value = trimmed(value);
    key = lowered(key);
    op = lowered(op);
    if (key.empty() || op.empty() || value.empty())
      throw SelectionError("filter clause '" + clause + "' is not KEY OP VALUE (e.g. thread in 1-2, time >= 0.5)");
    if (key == "thread" || key == "sample" || key == "cpu") {
      if (op != "in" && op != "==") throw SelectionError("filter clause '" + clause + "': use " + key + " in LIST or " + key + " == N");
      auto& list = key == "thread" ? selection.threads : key == "sample" ? selection.samples : selection.cpus;
      list = NumberList::parse(value, key + " list");
    } else if (key == "time") {
      if (op == ">=" || op == ">") {
        selection.from_s = parse_seconds(value, clause);
      } else if (op == "<=" || op == "<") {
        selection.to_s = parse_seconds(value, clause);
      } else if (op == "in") {
        const size_t dash = value.find('-');
        if (dash == std::string::npos) throw SelectionError("filter clause '" + clause + "': a time range is FROM-TO");
        selection.from_s = parse_seconds(trimmed(value.substr(0, dash)), clause);
        selection.to_s = parse_seconds(trimmed(value.substr(dash + 1)), clause);
      } else {
        throw SelectionError("filter clause '" + clause + "': time takes >=, <= or in FROM-TO");
      }
    } else if (key == "function") {
      if (op != "==" && op != "in") throw SelectionError("filter clause '" + clause + "': use function == NAME");
      selection.functions.push_back(value);
    } else {
      throw SelectionError("unknown filter key '" + key + "' in '" + clause + "'; known: thread, sample, cpu, time, function");
    }
  }
  return selection;
}

EventFilter event_filter(const EventSelection& s, const std::vector<std::unique_ptr<Experiment>>& experiments) {
  auto active = [](const std::optional<NumberList>& l) { return l && !l->all(); };
  if (!active(s.threads) && !active(s.samples) && !active(s.cpus) && !active(s.ranks) && !active(s.hosts) &&
      !s.from_s && !s.to_s && !s.expression)
    return {};
  const ExperimentHosts hosts = experiment_hosts(experiments);
  std::vector<const Experiment*> list;
  // Whether each experiment is of a selected rank (one without a rank, such
  // as mpirun's, is of none).
  std::vector<bool> rank_selected;
  std::vector<int64_t> pid_of;
  for (const auto& e : experiments) {
    list.push_back(e.get());
    pid_of.push_back(e->target_pid());
    const YAML::Node rank = e->header()["rank"];
    rank_selected.push_back(rank && rank.IsScalar() && s.ranks && s.ranks->contains(rank.as<uint64_t>()));
  }
  return [s, list, rank_selected, pid_of, host_of = hosts.of_experiment, threads = active(s.threads),
          samples = active(s.samples), cpus = active(s.cpus), ranks = active(s.ranks),
          by_host = active(s.hosts)](size_t experiment, const lumen_event& event) {
    const Experiment& e = *list[experiment];
    if (ranks && !rank_selected[experiment]) return false;
    if (by_host && !s.hosts->contains(static_cast<uint64_t>(host_of[experiment]))) return false;
    if (threads && !s.threads->contains(e.thread_number(event.thread_id))) return false;
    // An event that records no CPU (heap, sync, MPI tracing) is kept: the
    // CPU list chooses among those that do (er_print says so).
    if (cpus && event.cpu >= 0 && !s.cpus->contains(static_cast<uint64_t>(event.cpu))) return false;
    if (samples && !s.samples->contains(e.samples().sample_at(event.time_ns))) return false;
    if (s.from_s || s.to_s) {
      const double t = event.time_ns >= e.start_ns() ? static_cast<double>(event.time_ns - e.start_ns()) / 1e9 : 0.0;
      if (s.from_s && t < *s.from_s) return false;
      if (s.to_s && t > *s.to_s) return false;
    }
    if (s.expression) {
      EventTokens t;
      t.thread = e.thread_number(event.thread_id);
      t.cpu = event.cpu;
      t.sample = e.samples().sample_at(event.time_ns);
      t.timestamp = event.time_ns >= e.start_ns() ? static_cast<int64_t>(event.time_ns - e.start_ns()) : 0;
      t.experiment = static_cast<int64_t>(experiment + 1);
      t.host = host_of[experiment];
      t.pid = pid_of[experiment];
      // An event without a CPU is kept by a CPU expression, as by a CPU list.
      if (!(event.cpu < 0 && s.expression->uses_cpu()) && s.expression->evaluate(t) == 0) return false;
    }
    return true;
  };
}

namespace {

std::optional<double> later(std::optional<double> x, std::optional<double> y) {
  return x && y ? std::max(*x, *y) : x ? x : y;
}
std::optional<double> earlier(std::optional<double> x, std::optional<double> y) {
  return x && y ? std::min(*x, *y) : x ? x : y;
}
std::optional<double> seconds(std::optional<int64_t> ns) {
  return ns ? std::optional<double>(static_cast<double>(*ns) / 1e9) : std::nullopt;
}

}  // namespace

// The time clauses' stretch, within where a gprofng expression's TSTAMP
// comparisons hold.
TimeWindow time_window(const EventSelection& selection) {
  if (!selection.expression || !selection.expression->uses_time()) return {selection.from_s, selection.to_s};
  const TimestampBounds stamped = selection.expression->timestamp_bounds();
  return {later(selection.from_s, seconds(stamped.from_ns)), earlier(selection.to_s, seconds(stamped.to_ns))};
}

TimeWindow time_window(const EventSelection& a, const EventSelection& b) {
  const TimeWindow x = time_window(a), y = time_window(b);
  return {later(x.from_s, y.from_s), earlier(x.to_s, y.to_s)};
}

std::vector<std::string> record_selection_notes(const std::string& view, const EventSelection& selection) {
  if (!selection.functions.empty())
    throw SelectionError("-" + view + " cannot apply the filter 'function == " + selection.functions.front() +
                         "' (it counts its records, not the samples of -functions); drop that clause with -filters");
  std::vector<std::string> notes;
  if (selection.selects_cpus())
    notes.push_back("-" + view + ": its records carry no CPU, so the CPU list (" +
                    (selection.cpus ? selection.cpus->text() : selection.expression->text()) +
                    ") does not apply and all of them are counted");
  return notes;
}

StackFilter stack_filter(const EventSelection& selection, const ProgramStructure& structure) {
  if (selection.functions.empty()) return {};
  return [names = selection.functions, &structure](std::span<const FunctionId> frames) {
    for (const std::string& name : names) {
      const bool found =
          std::any_of(frames.begin(), frames.end(), [&](FunctionId f) { return is_named(structure.function(f), name); });
      if (!found) return false;
    }
    return true;
  };
}

}  // namespace lumen::analysis
