// Clock profiling on the host: each sample becomes one event carrying the
// user and system CPU time it stands for, and their sum.
#include <lumen/analysis_plugin.h>

#include <cstdio>
#include <cstring>
#include <iterator>

#include "../clock_record.h"

namespace {

using lumen::clock::ClockSplitSample;

constexpr uint32_t kAllFlavors = LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED;

// gprofng's keywords, titles and order, which is also the order of the
// event values: the total first (what a sample stands for, e.g. in an
// export's timeline), then its parts. As in gprofng, the default metric
// list shows the total; its parts are asked for by name.
const lumen_metric_def kMetrics[] = {
    {"totalcpu", "Total CPU Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "CPU time of the thread, user and system, sampled on its CPU-time clock"},
    {"user", "User CPU Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "CPU time of the thread in user mode, sampled on its CPU-time clock", /*default_flavors=*/0,
     /*hidden_by_default=*/1},
    {"system", "System CPU Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "CPU time of the thread in the kernel on its behalf (system calls, page faults), sampled on its CPU-time clock",
     /*default_flavors=*/0, /*hidden_by_default=*/1},
};

int decode(void*, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
           size_t error_size) {
  if (kind == lumen::clock::kSplitSampleRecord && bytes >= sizeof(ClockSplitSample)) {
    ClockSplitSample sample;
    std::memcpy(&sample, payload, sizeof sample);
    // An event's values are signed 64-bit nanoseconds: times whose sum
    // does not fit are no sample's.
    if (sample.user_ns > INT64_MAX || sample.system_ns > INT64_MAX - sample.user_ns) {
      std::snprintf(error, error_size, "clock sample of %llu ns user and %llu ns system CPU time, more than a sample holds",
                    static_cast<unsigned long long>(sample.user_ns), static_cast<unsigned long long>(sample.system_ns));
      return 1;
    }
    const int64_t user = static_cast<int64_t>(sample.user_ns), system = static_cast<int64_t>(sample.system_ns);
    const int64_t values[] = {user + system, user, system};
    lumen_emit_event(sink, sample.time_ns, sample.stack_id, sample.thread_id, sample.cpu, values);
    return 0;
  }
  if (kind != lumen::clock::kSplitSampleRecord) return lumen_unknown_record_kind("clock", kind, error, error_size);
  std::snprintf(error, error_size, "clock record of %u bytes is too short for a sample", bytes);
  return 1;
}

const lumen_analysis_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_analysis_descriptor),
    .name = "clock",
    .version = "1.1",
    .data_file = lumen::clock::kDataFile,
    .metrics = kMetrics,
    .metric_count = std::size(kMetrics),
    .decode = decode,
    .decodes_in_parts = 1,  // each sample is one event
};

}  // namespace

LUMEN_EXPORT const lumen_analysis_descriptor* lumen_analysis_plugin() {
  return &kPlugin;
}
