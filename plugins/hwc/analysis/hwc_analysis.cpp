// Hardware counter profiling on the host: each overflow record becomes one
// event carrying the counter's increment in the counter's metric (and, for a
// cycle counter, the same increment as time); counts after a thread's last
// overflow go to the artificial function collector_final_counters. CPI and
// IPC are derived metrics: er_print divides the rows' counts.
#include <lumen/analysis_plugin.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <list>
#include <string>

#include "../hwc_record.h"
#include "hwc_metrics.h"

namespace lumen::hwc {
namespace {

// One configuration per counter list and clock rate seen in this session,
// kept while the plugin is loaded: experiments that collected the same
// counters share one, others have their own.
struct Configuration {
  std::string counters;
  double clock_mhz = 0;
  CounterMetrics metrics;
};
std::list<Configuration> g_configurations;

int configure(const lumen_experiment_facts* experiment, lumen_configuration* out, char* error, size_t error_size) {
  const std::string counters = lumen_option(experiment->options, experiment->option_count, "counters", "");
  auto found = std::find_if(g_configurations.begin(), g_configurations.end(), [&](const Configuration& c) {
    return c.counters == counters && c.clock_mhz == experiment->clock_mhz;
  });
  if (found == g_configurations.end()) {
    Configuration configuration{counters, experiment->clock_mhz, {}};
    if (const std::string problem = counter_metrics(counters, experiment->clock_mhz, &configuration.metrics);
        !problem.empty()) {
      std::snprintf(error, error_size, "%s: hwc counters '%s': %s", experiment->directory, counters.c_str(),
                    problem.c_str());
      return 1;
    }
    found = g_configurations.insert(g_configurations.end(), std::move(configuration));
  }
  const CounterMetrics& metrics = found->metrics;
  out->metrics = metrics.metrics.data();
  out->metric_count = metrics.metrics.size();
  out->derived_metrics = metrics.derived.data();
  out->derived_metric_count = metrics.derived.size();
  out->decoder_context = const_cast<CounterMetrics*>(&metrics);
  return 0;
}

// The decoder's state is the experiment's metrics.
void* decoder_begin(void* context) { return context; }

int decode(void* state, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink,
           char* error, size_t error_size) {
  if (kind == kSettingsRecord) return 0;
  if (kind != kOverflowRecord) return lumen_unknown_record_kind("hardware counter", kind, error, error_size);
  if (state == nullptr) {
    std::snprintf(error, error_size, "hwc records in an experiment that recorded no counters option");
    return 1;
  }
  const CounterMetrics& metrics = *static_cast<const CounterMetrics*>(state);
  if (bytes < sizeof(CounterOverflow)) {
    std::snprintf(error, error_size, "counter overflow record of %u bytes, expected %zu", bytes,
                  sizeof(CounterOverflow));
    return 1;
  }
  CounterOverflow record;
  std::memcpy(&record, payload, sizeof record);
  if (record.counter >= metrics.count_metric.size()) {
    std::snprintf(error, error_size, "counter overflow of counter %u, but %zu counters were collected",
                  record.counter, metrics.count_metric.size());
    return 1;
  }
  int64_t values[kMaxMetrics] = {};
  values[metrics.count_metric[record.counter]] = static_cast<int64_t>(record.count);
  if (const int time = metrics.time_metric[record.counter]; time >= 0)
    values[time] = std::llround(static_cast<double>(record.count) * 1000.0 / metrics.clock_mhz);
  uint64_t stack_id = record.stack_id;
  if ((record.flags & kFinalCounts) != 0) stack_id = sink->artificial_stack(sink->context, "collector_final_counters");
  else if ((record.flags & kNotProgramRelated) != 0)
    stack_id = sink->artificial_stack(sink->context, "collector_not_program_related");
  lumen_emit_event(sink, record.time_ns, stack_id, record.thread_id, -1, values);
  return 0;
}

// Metrics come from configure(); an experiment without it would have none.
const lumen_analysis_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_analysis_descriptor),
    .name = "hwc",
    .version = "1.0",
    .data_file = kDataFile,
    .configure = configure,
    .decoder_begin = decoder_begin,
    .decode = decode,
    .decodes_in_parts = 1,  // each overflow is one event; the state is the configuration, only read
};

}  // namespace
}  // namespace lumen::hwc

LUMEN_EXPORT const lumen_analysis_descriptor* lumen_analysis_plugin() { return &lumen::hwc::kPlugin; }
