#include "counter_listing.h"

#include <perfmon/pfmlib_perf_event.h>

#include <cstring>
#include <string>

#include "counter_encoding.h"

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

}  // namespace

void list_counters(void (*line)(void*, const char*), void* context) {
  std::string why;
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
  } else {
    const std::string text = "No hardware counters available for profiling: " + why + ".";
    line(context, text.c_str());
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
