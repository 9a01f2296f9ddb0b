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
  lumen_event event{};
  event.time_ns = sample.time_ns;
  event.stack_id = sample.stack_id;
  event.thread_id = sample.thread_id;
  event.cpu = sample.cpu;
  event.values[0] = static_cast<int64_t>(sample.cpu_ns);
  sink->emit(sink->context, &event);
  return 0;
}

const lumen_analysis_descriptor kPlugin = {
    LUMEN_PLUGIN_ABI_VERSION, "clock", "1.0", lumen::clock::kDataFile, kMetrics, std::size(kMetrics),
    nullptr, decode, nullptr, nullptr, 0,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const lumen_analysis_descriptor* lumen_analysis_plugin() {
  return &kPlugin;
}
