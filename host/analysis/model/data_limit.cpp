#include "data_limit.h"

#include <cstdio>

#include "experiment_metadata.h"

namespace lumen::analysis {

std::optional<DataLimitReached> data_limit_reached(const YAML::Node& header, const std::vector<YAML::Node>& log) {
  std::optional<uint64_t> start_ns, reached_ns;
  std::optional<uint64_t> limit_bytes;
  for (const YAML::Node& entry : log) {
    if (!entry.IsMap() || !entry["event"]) continue;
    const std::string event = entry["event"].as<std::string>("");
    if (event == metadata::log_event::kStart && !start_ns && entry["time_ns"])
      start_ns = entry["time_ns"].as<uint64_t>(0);
    if (event == metadata::log_event::kSizeLimitReached && !reached_ns) {
      reached_ns = entry["time_ns"] ? std::optional<uint64_t>(entry["time_ns"].as<uint64_t>(0)) : std::nullopt;
      limit_bytes = entry["limit_bytes"].as<uint64_t>(0);
      if (!reached_ns) reached_ns = 0;
    }
  }
  const YAML::Node flag = header[metadata::header::kSizeLimitReached];
  const bool said_in_header = flag && flag.IsScalar() && flag.as<std::string>("") == "true";
  if (!said_in_header && !limit_bytes) return std::nullopt;
  DataLimitReached reached;
  reached.limit_bytes = limit_bytes.value_or(header[metadata::header::kSizeLimitBytes].as<uint64_t>(0));
  if (reached_ns && *reached_ns != 0 && start_ns && *reached_ns >= *start_ns)
    reached.after_seconds = static_cast<double>(*reached_ns - *start_ns) / 1e9;
  return reached;
}

std::string data_limit_sentence(const DataLimitReached& reached) {
  char when[64] = "at a time the log does not record";
  if (reached.after_seconds) std::snprintf(when, sizeof when, "%.3f s after collection start", *reached.after_seconds);
  std::string limit = "its limit";
  if (reached.limit_bytes != 0) {
    char megabytes[32];
    std::snprintf(megabytes, sizeof megabytes, "%.6g", static_cast<double>(reached.limit_bytes) / (1024.0 * 1024.0));
    limit = "its limit of " + std::string(megabytes) + " MB";
  }
  return std::string("recording stopped ") + when + ": the data files reached " + limit +
         " (collect -L); nothing after that was recorded, so every figure covers only the time before";
}

}  // namespace lumen::analysis
