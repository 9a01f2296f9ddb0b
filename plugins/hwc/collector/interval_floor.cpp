#include "interval_floor.h"

namespace lumen::hwc {

namespace {

bool counts_time(const perf_event_attr& attr) {
  return attr.type == PERF_TYPE_SOFTWARE &&
         (attr.config == PERF_COUNT_SW_TASK_CLOCK || attr.config == PERF_COUNT_SW_CPU_CLOCK);
}

}  // namespace

std::string interval_obstacle(const EncodedCounter& counter) {
  if (counter.not_program_related || !counts_time(counter.attr) || counter.interval >= kMinimumTimeIntervalNs)
    return "";
  return "the interval " + std::to_string(counter.interval) + " of " + counter.name +
         " is below its floor of " + std::to_string(kMinimumTimeIntervalNs) +
         " ns (50 us): the kernel times it no finer than every 10 us and each overflow costs the thread "
         "several microseconds of its own, so the profile would measure the collector; give at least " +
         std::to_string(kMinimumTimeIntervalNs);
}

}  // namespace lumen::hwc
