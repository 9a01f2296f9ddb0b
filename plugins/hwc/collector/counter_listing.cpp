#include "counter_listing.h"

#include <perfmon/pfmlib_perf_event.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "counter_encoding.h"
#include "sysfs_event.h"

namespace lumen::hwc {

namespace {

// "name,default (`Title', alias for EVENT; units)"
std::string alias_line(const NamedCounter& c, const std::string& event) {
  return std::string(c.name) + "," + std::to_string(c.default_interval) + " (`" + c.title + "', alias for " + event +
         "; " + c.units + ")";
}

// Every event of the PMUs libpfm4 finds present for this CPU's core.
void list_raw_counters(void (*line)(void*, const char*), void* context) {
  if (pfm_initialize() != PFM_SUCCESS) return;
  for (int pmu_number = PFM_PMU_NONE; pmu_number < PFM_PMU_MAX; ++pmu_number) {
    const auto pmu = static_cast<pfm_pmu_t>(pmu_number);
    pfm_pmu_info_t info;
    std::memset(&info, 0, sizeof info);
    info.size = sizeof info;
    if (pfm_get_pmu_info(pmu, &info) != PFM_SUCCESS || !info.is_present || info.type != PFM_PMU_TYPE_CORE) continue;
    for (int e = info.first_event; e != -1; e = pfm_get_event_next(e)) {
      pfm_event_info_t event;
      std::memset(&event, 0, sizeof event);
      event.size = sizeof event;
      if (pfm_get_event_info(e, PFM_OS_PERF_EVENT, &event) != PFM_SUCCESS) continue;
      const std::string text = std::string(event.name) + "," + std::to_string(kRawDefaultInterval) + " (events)";
      line(context, text.c_str());
    }
  }
}

// The sysfs PMU events (PMU/EVENT/) that count but cannot sample, each
// "msr/tsc/,1000003 (not-program-related events)", as Oracle lists them.
std::vector<std::string> not_program_related_lines() {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code error;
  for (const fs::directory_entry& pmu : fs::directory_iterator(kSysfsPmuRoot, error))
    for (const fs::directory_entry& event : fs::directory_iterator(pmu.path() / "events", error)) {
      const std::string file = event.path().filename().string();
      // EVENT.scale, EVENT.unit, ... describe EVENT.
      if (file.find('.') == std::string::npos) names.push_back(pmu.path().filename().string() + "/" + file + "/");
    }
  std::sort(names.begin(), names.end());
  std::vector<std::string> lines;
  for (const std::string& name : names) {
    EncodedCounter encoded;
    if (!encode_counter({name, kRawDefaultInterval}, &encoded).empty() || !encoded.not_program_related ||
        !counter_obstacle(encoded).empty())
      continue;
    lines.push_back(name + "," + std::to_string(kRawDefaultInterval) + " (not-program-related events)");
  }
  return lines;
}

}  // namespace

void list_counters(void (*line)(void*, const char*), void* context) {
  std::string why;
  const std::vector<std::string> not_program_related = not_program_related_lines();
  if (hardware_counters_available(&why)) {
    line(context, "Aliased HW counters available for profiling:");
    for (const NamedCounter& c : named_counters()) {
      if ((c.flags & kHardware) == 0) continue;
      EncodedCounter encoded;
      if (!encode_counter({c.name, c.default_interval}, &encoded).empty()) continue;
      if (!counter_obstacle(encoded).empty()) continue;
      line(context, alias_line(c, encoded.event).c_str());
    }
    line(context, "Raw HW counters available for profiling:");
    list_raw_counters(line, context);
    for (const std::string& text : not_program_related) line(context, text.c_str());
  } else {
    const std::string text = "No hardware counters available for profiling: " + why + ".";
    line(context, text.c_str());
    // CPU-wide PMUs (msr, power, ...) exist in many machines without a core PMU.
    if (!not_program_related.empty()) line(context, "Raw HW counters available for profiling:");
    for (const std::string& text : not_program_related) line(context, text.c_str());
  }
  line(context, "Software events available for profiling:");
  for (const NamedCounter& c : named_counters()) {
    if ((c.flags & kHardware) != 0) continue;
    EncodedCounter encoded;
    if (!encode_counter({c.name, c.default_interval}, &encoded).empty() || !counter_obstacle(encoded).empty()) continue;
    line(context, alias_line(c, c.event).c_str());
  }
}

}  // namespace lumen::hwc
