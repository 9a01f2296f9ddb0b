// Hardware counter profiling on the host: each overflow record becomes one
// event carrying the counter's increment in the counter's metric (and, for a
// cycle counter, the same increment as time); counts after a thread's last
// overflow go to the artificial function collector_final_counters. CPI and
// IPC are derived metrics: er_print divides the rows' counts.
#include <lumen/analysis_plugin.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "../hwc_record.h"
#include "hwc_metrics.h"

namespace lumen::hwc {
namespace {

// The metrics of the experiments of this er_print session (configure()).
CounterMetrics g_metrics;
std::string g_configured_counters;
bool g_configured = false;

int decode(void*, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
           size_t error_size);

// Metrics are filled in by configure(); until then the plugin declares none.
lumen_analysis_descriptor g_plugin = {
    LUMEN_PLUGIN_ABI_VERSION, "hwc", "1.0", kDataFile, nullptr, 0, nullptr, decode, nullptr, nullptr, 0,
};

// The CPU clock rate collect recorded in the experiment's header, or 0.
double recorded_clock_mhz(const char* experiment) {
  std::ifstream header(std::string(experiment) + "/header.yaml");
  std::string line;
  while (std::getline(header, line))
    if (line.rfind("clock_mhz:", 0) == 0) return std::atof(line.c_str() + 10);
  return 0;
}

int configure(const char* experiment, const lumen_option_value* options, size_t count, char* error,
              size_t error_size) {
  std::string counters;
  for (size_t i = 0; i < count; ++i)
    if (std::strcmp(options[i].name, "counters") == 0) counters = options[i].value;
  if (g_configured) {
    if (counters == g_configured_counters) return 0;
    std::snprintf(error, error_size,
                  "%s collected the counters '%s', another experiment of this session '%s': analyze them apart",
                  experiment, counters.c_str(), g_configured_counters.c_str());
    return 1;
  }
  if (const std::string problem = counter_metrics(counters, recorded_clock_mhz(experiment), &g_metrics);
      !problem.empty()) {
    std::snprintf(error, error_size, "%s: hwc counters '%s': %s", experiment, counters.c_str(), problem.c_str());
    return 1;
  }
  g_configured = true;
  g_configured_counters = counters;
  g_plugin.metrics = g_metrics.metrics.data();
  g_plugin.metric_count = g_metrics.metrics.size();
  return 0;
}

int decode(void*, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
           size_t error_size) {
  if (kind == kSettingsRecord) return 0;
  if (kind != kOverflowRecord) return 0;  // a kind a newer minor format appended
  if (bytes < sizeof(CounterOverflow)) {
    std::snprintf(error, error_size, "counter overflow record of %u bytes, expected %zu", bytes,
                  sizeof(CounterOverflow));
    return 1;
  }
  CounterOverflow record;
  std::memcpy(&record, payload, sizeof record);
  if (record.counter >= g_metrics.count_metric.size()) {
    std::snprintf(error, error_size, "counter overflow of counter %u, but %zu counters were collected",
                  record.counter, g_metrics.count_metric.size());
    return 1;
  }
  lumen_event event{};
  event.time_ns = record.time_ns;
  event.stack_id = record.stack_id;
  if ((record.flags & kFinalCounts) != 0) event.stack_id = sink->artificial_stack(sink->context, "collector_final_counters");
  else if ((record.flags & kNotProgramRelated) != 0)
    event.stack_id = sink->artificial_stack(sink->context, "collector_not_program_related");
  event.thread_id = record.thread_id;
  event.cpu = -1;
  event.values[g_metrics.count_metric[record.counter]] = static_cast<int64_t>(record.count);
  if (const int time = g_metrics.time_metric[record.counter]; time >= 0)
    event.values[time] = std::llround(static_cast<double>(record.count) * 1000.0 / g_metrics.clock_mhz);
  sink->emit(sink->context, &event);
  return 0;
}

}  // namespace
}  // namespace lumen::hwc

extern "C" __attribute__((visibility("default"))) const lumen_analysis_descriptor* lumen_analysis_plugin() {
  return &lumen::hwc::g_plugin;
}

extern "C" __attribute__((visibility("default"))) const lumen_derived_metric_def* lumen_analysis_derived_metrics(
    size_t* count) {
  *count = lumen::hwc::g_metrics.derived.size();
  return lumen::hwc::g_metrics.derived.data();
}

extern "C" __attribute__((visibility("default"))) int lumen_analysis_configure(const char* experiment,
                                                                              const lumen_option_value* options,
                                                                              size_t count, char* error,
                                                                              size_t error_size) {
  return lumen::hwc::configure(experiment, options, count, error, error_size);
}
