// Clock profiling on the host: each sample becomes one event whose User CPU
// time is the CPU time the sample stands for.
#include <lumen/analysis_plugin.h>

#include <cstdio>
#include <cstring>
#include <iterator>

#include "../clock_record.h"

namespace {

using lumen::clock::ClockSample;

const lumen_metric_def kMetrics[] = {
    {"user", "User CPU Time", LUMEN_UNIT_NANOSECONDS,
     LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED,
     "CPU time of the thread, sampled on its CPU-time clock"},
};

int decode(void*, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
           size_t error_size) {
  if (kind != lumen::clock::kSampleRecord || bytes < sizeof(ClockSample)) {
    std::snprintf(error, error_size, "clock record of kind %u and %u bytes is not a sample", kind, bytes);
    return 1;
  }
  ClockSample sample;
  std::memcpy(&sample, payload, sizeof sample);
  const int64_t values[] = {static_cast<int64_t>(sample.cpu_ns)};
  lumen_emit_event(sink, sample.time_ns, sample.stack_id, sample.thread_id, sample.cpu, values);
  return 0;
}

const lumen_analysis_descriptor kPlugin = {
    .abi_version = LUMEN_PLUGIN_ABI_VERSION,
    .name = "clock",
    .version = "1.0",
    .data_file = lumen::clock::kDataFile,
    .metrics = kMetrics,
    .metric_count = std::size(kMetrics),
    .decode = decode,
};

}  // namespace

LUMEN_EXPORT const lumen_analysis_descriptor* lumen_analysis_plugin() {
  return &kPlugin;
}
