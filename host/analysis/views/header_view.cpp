#include "experiment_metadata.h"
#include "header_view.h"

#include "data_limit.h"
#include "experiment_format.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <cstdlib>
#include <ctime>

namespace lumen::analysis {

namespace {

std::string joined(const YAML::Node& list) {
  std::string text;
  if (list && list.IsSequence())
    for (const auto& item : list) text += (text.empty() ? "" : " ") + item.as<std::string>();
  return text;
}

// Whether `lineage` is an image `own` became by its own exec (own + "_x"
// + a number), not a child it spawned (own + "_f" + ...), whose exec the
// log also records.
bool own_next_image(const std::string& own, const std::string& lineage) {
  if (lineage.size() <= own.size() + 2 || lineage.compare(0, own.size(), own) != 0) return false;
  if (lineage.compare(own.size(), 2, "_x") != 0) return false;
  return lineage.find_first_not_of("0123456789", own.size() + 2) == std::string::npos;
}

// A lineage as the collector writes them (_f2_x1, _rank3): letters, digits
// and underscores, so that a log's lineage names a directory beside or
// under the experiment and nothing elsewhere.
bool plain_lineage(const std::string& lineage) {
  return !lineage.empty() && std::all_of(lineage.begin(), lineage.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_';
  });
}

// An image named for the MPI rank it became: _rank3, or _f2_x1_rank3.
bool rank_image(const std::string& lineage) {
  const size_t at = lineage.rfind("_rank");
  return at != std::string::npos && at + 5 < lineage.size() &&
         lineage.find_first_not_of("0123456789", at + 5) == std::string::npos;
}

// The lineage of the image that replaced `e`'s by a successful exec (its
// experiment exists beside or under `e`), or "". An image that became an
// MPI rank is named by its rank (_rank3): it is this process's next image
// when its header has this process's pid (a spawned child's has its own).
std::string replaced_by(const Experiment& e) {
  const std::string own = e.header()[metadata::header::kLineage].as<std::string>("");
  const std::string pid = e.header()[metadata::header::kTargetPid].as<std::string>("");
  const auto experiment_of = [&](const std::string& lineage) -> std::filesystem::path {
    std::error_code error;
    const std::string name = lineage + ".er";
    if (std::filesystem::is_directory(e.path() / name, error)) return e.path() / name;
    if (std::filesystem::is_directory(e.path().parent_path() / name, error)) return e.path().parent_path() / name;
    return {};
  };
  std::string lineage;
  for (const YAML::Node& entry : e.log()) {
    if (!entry["event"] || entry["event"].as<std::string>() != metadata::log_event::kExec) continue;
    const std::string next = entry["lineage"].as<std::string>("");
    if (!plain_lineage(next)) continue;
    if (own_next_image(own, next)) {
      if (!experiment_of(next).empty()) lineage = next;
    } else if (rank_image(next) && !pid.empty()) {
      const std::filesystem::path path = experiment_of(next);
      if (path.empty()) continue;
      try {
        if (read_experiment_header(path)[metadata::header::kTargetPid].as<std::string>("") == pid) lineage = next;
      } catch (const std::exception&) {
        // A rank's header that cannot be read tells nothing of this process.
      }
    }
  }
  return lineage;
}

Record record_of(const Experiment& e, const AnalysisPlugins& installed) {
  const YAML::Node& h = e.header();
  Record r;
  r.heading = e.path().string();
  r.add("command", "Target command", joined(h[metadata::header::kCommand]));
  r.add_number("target_pid", "Process id", h[metadata::header::kTargetPid].as<std::string>("?"));
  if (h[metadata::header::kAttached].as<bool>(false))
    r.add("attached", "Attached", "to the process while it ran (collect -P): the start is the attach's");
  r.add("host", "Host", h[metadata::header::kHost].as<std::string>("?"));
  r.add_number("cpus", "CPUs", h[metadata::header::kCpus].as<std::string>("?"));
  r.add_number("clock_mhz", "Clock rate (MHz)", h[metadata::header::kClockMhz].as<std::string>("?"));
  r.add("collector_version", "Collector version", h[metadata::header::kCollectorVersion].as<std::string>("?"));
  r.add("format", "Experiment format",
        h[metadata::header::kFormat]["major"].as<std::string>("?") + "." + h[metadata::header::kFormat]["minor"].as<std::string>("?"));
  const long long start = h[metadata::header::kStartWallNs].as<long long>(0);
  const long long end = h[metadata::header::kEndWallNs].as<long long>(0);
  // An implausible start was taken out of the header (experiment_notices.h).
  r.add_number("start_wall_ns", "Start (ns since the epoch)", start > 0 ? std::to_string(start) : "?");
  const time_t start_seconds = static_cast<time_t>(start / 1000000000LL);
  char when[64] = "?";
  std::tm local{};
  localtime_r(&start_seconds, &local);
  if (start > 0) std::strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S %Z", &local);
  r.add("start_time", "Start time", when);
  if (end > 0 && start > 0) r.add_number("duration_s", "Duration (sec.)", static_cast<double>(end - start) / 1e9, {LUMEN_UNIT_NANOSECONDS});
  // An image replaced by exec has no ending of its own: its process went on
  // as the next image, whose experiment has the process's ending (collect
  // records the founder's process's ending in the founder's header, even
  // when an image after an exec ended it). An exec that failed left no
  // experiment of the next image.
  const std::string exec_lineage = replaced_by(e);
  if (!exec_lineage.empty()) {
    r.add("ending", "Ending", "replaced by exec (its process went on as " + exec_lineage + ")");
  } else if (const YAML::Node ending = h[metadata::header::kTargetEnd]) {
    if (ending["exit_code"]) r.add_number("exit_code", "Exit status", ending["exit_code"].as<std::string>());
    if (ending["signal"]) r.add("signal", "Killed by signal", "SIG" + ending["signal_name"].as<std::string>("?"));
  } else if (h[metadata::header::kDetached]) {
    r.add("ending", "Ending", "still running when collect detached from it");
  } else if (h[metadata::header::kExitSeen]) {
    r.add("ending", "Ending", "exited while recorded from outside (its exit status is not seen there)");
  } else {
    r.add("ending", "Ending", "not recorded (collect was interrupted, or the experiment is still being written)");
  }
  if (const auto reached = data_limit_reached(h, e.log()))
    r.add("data_limit_reached", "Data limit (-L) reached", data_limit_sentence(*reached));
  else if (const YAML::Node limit = h[metadata::header::kSizeLimitBytes])
    r.add_number("data_limit_bytes", "Data limit (-L), not reached", limit.as<std::string>("?"));
  if (const YAML::Node cut = h[metadata::header::kCutShort]) r.add("cut_short", "Collection cut short", cut.as<std::string>(""));
  if (const YAML::Node plugins = h[metadata::header::kPlugins]; plugins && plugins.IsMap()) {
    for (const auto& p : plugins) {
      std::string options;
      for (const auto& o : p.second["options"]) {
        const std::string name = o.first.as<std::string>();
        options += (options.empty() ? "" : ", ") + name + "=" +
                   readable_option(installed.option(p.first.as<std::string>(), name), o.second.as<std::string>());
      }
      r.add("plugin." + p.first.as<std::string>(), "Data: " + p.first.as<std::string>(),
            p.second["version"].as<std::string>("?") + " -> " + p.second["data_file"].as<std::string>("?") +
                (options.empty() ? "" : " (" + options + ")"));
    }
  }
  if (const YAML::Node left_out = h[metadata::header::kLeftOut]; left_out && left_out.IsSequence())
    for (size_t i = 0; i < left_out.size(); ++i)
      r.add("left_out" + std::to_string(i + 1), "Left out",
            left_out[i]["plugin"].as<std::string>("?") + " " + left_out[i]["what"].as<std::string>("?") + ": " +
                left_out[i]["reason"].as<std::string>(""));
  if (const YAML::Node comments = h[metadata::header::kComments]; comments && comments.IsSequence())
    for (size_t i = 0; i < comments.size(); ++i) r.add("comment" + std::to_string(i + 1), "Comment", comments[i].as<std::string>());
  for (const YAML::Node& entry : e.log())
    if (entry["event"] && entry["event"].as<std::string>() == metadata::log_event::kEnd)
      r.add_number("dropped_records", "Records dropped", entry["dropped_records"].as<std::string>("0"));
  // What plugins noted at start (e.g. the sync threshold they settled on).
  size_t notes = 0;
  for (const YAML::Node& entry : e.log())
    if (entry["event"] && entry["event"].as<std::string>() == metadata::log_event::kNote)
      r.add("note" + std::to_string(++notes), "Note", entry["text"].as<std::string>(""));
  for (size_t i = 0; i < e.warnings().size(); ++i) r.add("warning" + std::to_string(i + 1), "Warning", e.warnings()[i]);
  return r;
}

}  // namespace

std::string ending_text(const Experiment& e) {
  const std::string exec_lineage = replaced_by(e);
  if (!exec_lineage.empty()) return "replaced by exec (" + exec_lineage + ")";
  const YAML::Node ending = e.header()[metadata::header::kTargetEnd];
  if (ending && ending["signal"]) return "killed by SIG" + ending["signal_name"].as<std::string>("?");
  if (ending && ending["exit_code"]) return "exit " + ending["exit_code"].as<std::string>();
  if (e.header()[metadata::header::kDetached]) return "detached";
  if (e.header()[metadata::header::kExitSeen]) return "exited";
  return "not recorded";
}

std::string readable_option(const host::OptionSpec* spec, const std::string& value) {
  if (spec == nullptr) return value;
  if (spec->kind == LUMEN_OPTION_BOOLEAN) return value == "1" ? "on" : value == "0" ? "off" : value;
  if (spec->kind != LUMEN_OPTION_DURATION) return value;
  char* end = nullptr;
  const long long ns = std::strtoll(value.c_str(), &end, 10);
  if (value.empty() || end == nullptr || *end != '\0' || ns < 0) return value;
  struct Unit {
    long long ns;
    const char* name;
  };
  static const Unit kUnits[] = {{1000000000LL, "s"}, {1000000LL, "ms"}, {1000LL, "µs"}};
  for (const Unit& unit : kUnits)
    if (ns >= unit.ns) {
      char text[64];
      std::snprintf(text, sizeof text, "%.3f %s", static_cast<double>(ns) / static_cast<double>(unit.ns), unit.name);
      return text;
    }
  return std::to_string(ns) + " ns";
}

Document header_view(const std::vector<std::unique_ptr<Experiment>>& experiments, const AnalysisPlugins& plugins) {
  RecordList list{"experiments", "experiment", "Experiment", RecordLayout::Labelled, {}};
  for (const auto& e : experiments) list.records.push_back(record_of(*e, plugins));
  return {"header", "", {std::move(list)}, {}};
}

}  // namespace lumen::analysis
