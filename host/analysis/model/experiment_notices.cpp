#include "experiment_notices.h"

#include <lumen/record_format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <map>

#include "data_limit.h"
#include "experiment_metadata.h"

namespace lumen::analysis {

namespace fs = std::filesystem;

std::vector<std::string> missing_table_notices(const fs::path& experiment) {
  struct Table {
    const char* file;
    const char* cost;
  };
  static const Table kTables[] = {
      {LUMEN_STACKS_FILE, "every event's stack is unknown (its time goes to <Unknown>)"},
      {LUMEN_LOADOBJECTS_FILE, "no address can be placed in a load object, so every function is unknown"},
  };
  std::vector<std::string> notices;
  for (const Table& table : kTables)
    if (!fs::exists(fs::symlink_status(experiment / table.file)))
      notices.push_back(std::string(table.file) + " missing: " + table.cost);
  return notices;
}

std::string missing_data_file_notice(const std::string& data_file, const std::string& plugin) {
  return data_file + " missing: no " + plugin + " data (the header says plugin '" + plugin +
         "' recorded it; the file is gone)";
}

bool data_file_created(const std::vector<YAML::Node>& log, const std::string& data_file) {
  for (const YAML::Node& entry : log)
    if (entry.IsMap() && entry["event"] && entry["event"].as<std::string>("") == metadata::log_event::kDataFileCreated &&
        entry["name"].as<std::string>("") == data_file)
      return true;
  return false;
}

namespace {

// The collector's names of why records were dropped (the end event's
// dropped_causes), in words.
std::string drop_cause_in_words(const std::string& cause) {
  if (cause == "thread_finished") return "written after their thread's collection ended";
  if (cause == "block_busy") return "a signal handler's with no block to write in";
  if (cause == "no_block") return "no block of a data file could be mapped";
  if (cause == "unwritable") return "records the writer refuses";
  if (cause == "after_fork") return "written in a forked child that was not collected";
  if (cause == "plugin") return "a plugin could not record them";
  return cause;
}

}  // namespace

std::optional<std::string> dropped_records_notice(const YAML::Node& header, const std::vector<YAML::Node>& log) {
  unsigned long long dropped = 0;
  std::map<std::string, unsigned long long> causes;
  std::string reason;
  for (const YAML::Node& entry : log) {
    if (!entry.IsMap() || !entry["event"]) continue;
    const std::string event = entry["event"].as<std::string>("");
    if (event == metadata::log_event::kEnd) {
      dropped += entry["dropped_records"].as<unsigned long long>(0);
      if (const YAML::Node listed = entry["dropped_causes"]; listed && listed.IsMap())
        for (const auto& cause : listed) causes[cause.first.as<std::string>("")] += cause.second.as<unsigned long long>(0);
    }
    if (event == metadata::log_event::kWriteFailed && reason.empty())
      reason = "writing " + entry["file"].as<std::string>("a data file") + " failed: " +
               entry["error"].as<std::string>("no error recorded");
  }
  if (dropped == 0) return std::nullopt;
  if (reason.empty() && data_limit_reached(header, log)) reason = "the data limit (collect -L) was reached";
  const bool mapping_explained = !reason.empty();  // a failed write or the limit
  for (const auto& [cause, count] : causes)
    if (!mapping_explained || cause != "no_block")
      reason += (reason.empty() ? "" : "; ") + std::to_string(count) + " " + drop_cause_in_words(cause);
  if (reason.empty()) reason = "the collector did not log why";
  return std::to_string(dropped) + " records were dropped while recording (" + reason +
         "); every figure leaves them out";
}

namespace {

// The scalar's number, as the collector would have written it; nullopt
// when it is not one at all.
std::optional<double> number_of(const YAML::Node& value) {
  if (!value.IsScalar()) return std::nullopt;
  const std::string& text = value.Scalar();
  errno = 0;
  char* end = nullptr;
  double number = std::strtod(text.c_str(), &end);
  if (text == ".nan" || text == ".NaN" || text == ".NAN") number = NAN;
  else if (text.empty() || end == nullptr || *end != '\0') return std::nullopt;
  return number;
}

// Any recording started after lumen existed and before now (a day's grace
// for a clock set a little ahead).
bool plausible_start_ns(double ns) {
  const double kJan1990 = 631152000.0;
  const double now = static_cast<double>(std::time(nullptr));
  return std::isfinite(ns) && ns / 1e9 >= kJan1990 && ns / 1e9 <= now + 86400.0;
}

}  // namespace

std::vector<std::string> drop_implausible_header_values(YAML::Node& header) {
  namespace key = metadata::header;
  std::vector<std::string> notices;
  if (!header.IsMap()) return notices;
  const auto drop = [&](const char* name, const std::string& why) {
    notices.push_back("header.yaml's " + std::string(name) + " is " + header[name].Scalar() + ", " + why +
                      "; it is treated as unknown");
    header.remove(name);
  };
  if (const YAML::Node cpus = header[key::kCpus]) {
    const auto n = number_of(cpus);
    if (!n || !std::isfinite(*n) || *n < 1 || *n != std::floor(*n)) drop(key::kCpus, "not a count of CPUs");
  }
  if (const YAML::Node mhz = header[key::kClockMhz]) {
    const auto n = number_of(mhz);
    if (!n || !std::isfinite(*n) || *n <= 0) drop(key::kClockMhz, "not a clock rate");
  }
  double start_ns = NAN;  // NaN: unknown
  if (const YAML::Node node = header[key::kStartWallNs]) {
    const auto start = number_of(node);
    if (start && plausible_start_ns(*start)) start_ns = *start;
    else drop(key::kStartWallNs, "not a time between 1990 and now");
  }
  if (const YAML::Node node = header[key::kEndWallNs]) {
    const auto end = number_of(node);
    if (!end || !std::isfinite(*end)) drop(key::kEndWallNs, "not a time");
    else if (*end < start_ns) drop(key::kEndWallNs, "before the start (a negative duration)");
    else if (std::isnan(start_ns)) header.remove(key::kEndWallNs);  // no duration without a start
  }
  return notices;
}

}  // namespace lumen::analysis
