// Off-CPU states on the host: each interval of a thread becomes up to three
// events: its blocked time on the stack it was blocked on (in the metric of
// its state), its wait for a CPU, and its time on a CPU (`total` and
// `oncpu`), each at the time its stack describes the thread, so that
// `total` of a thread is its wall time. Where clock profiling sampled the
// thread, the views built on stacks take its samples as the time on a CPU
// (sampled_part): per function, `total` is the states' time there plus the
// CPU time sampled there.
#include <lumen/analysis_plugin.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <iterator>

#include "../states_record.h"

namespace {

using lumen::states::Blocked;
using lumen::states::StateInterval;
using lumen::states::ThreadFigures;

constexpr uint32_t kAllFlavors = LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED;

// gprofng's keywords and titles.
enum Metric { kWait, kLock, kSleep, kDataFault, kTextFault, kStop, kTotal, kOnCpu, kMetricCount };
const lumen_metric_def kMetrics[] = {
    {"wait", "CPU Wait Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "time runnable but waiting for a CPU (schedstat's run delay)"},
    {"lock", "User Lock Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "time blocked in futex: mutexes, condition variables, semaphores, barriers, joins"},
    {"sleep", "Sleep Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "time blocked in other system calls: sleeps, I/O, poll"},
    {"datapfault", "Data Page Fault Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "time blocked in a page fault outside a system call, the page of its PC resident"},
    {"textpfault", "Text Page Fault Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "time blocked in a page fault outside a system call, the page of its PC not resident"},
    {"stop", "Stopped Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors, "time stopped by job control or a tracer"},
    {"total", "Total Thread Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "wall time of the thread while it existed: on a CPU, waiting for one, or blocked"},
    {"oncpu", "On-CPU Thread Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "Total Thread Time's time on a CPU: clock profiling's samples where it sampled the thread, else the kernel's "
     "count (schedstat)",
     0, 1},
};
static_assert(std::size(kMetrics) == kMetricCount, "one definition per metric");

// Where clock profiling recorded too, the default metric list shows its
// Total CPU Time and leaves the states out, as gprofng's does (they are
// asked for by name: -metrics e.sleep:i.sleep:name); an experiment of the
// states alone shows them.
const std::array<lumen_metric_def, kMetricCount> kMetricsBesideClock = [] {
  std::array<lumen_metric_def, kMetricCount> metrics = std::to_array(kMetrics);
  for (lumen_metric_def& metric : metrics) metric.hidden_by_default = 1;
  return metrics;
}();

int metric_of(Blocked blocked) {
  switch (blocked) {
    case Blocked::kLock: return kLock;
    case Blocked::kDataFault: return kDataFault;
    case Blocked::kTextFault: return kTextFault;
    case Blocked::kStopped: return kStop;
    default: return kSleep;
  }
}

uint64_t stack_or(const lumen_event_sink* sink, uint64_t stack, const char* artificial) {
  return stack != LUMEN_NO_STACK ? stack : sink->artificial_stack(sink->context, artificial);
}

// `ns` of `metric` (and of total) on `stack`, at `at_ns` (0: the interval's end).
void emit(const lumen_event_sink* sink, const StateInterval& r, uint64_t stack, uint64_t at_ns, int metric,
          uint64_t ns) {
  if (ns == 0) return;
  int64_t values[kMetricCount] = {};
  values[metric] = lumen_value_of(ns);
  values[kTotal] = lumen_value_of(ns);
  lumen_emit_event(sink, at_ns != 0 ? at_ns : r.time_ns, stack, r.thread_id, -1, values);
}

bool is_thread_figures(uint16_t kind, uint16_t bytes) {
  return kind == lumen::states::kThreadRecord && bytes >= sizeof(ThreadFigures);
}

int decode(void*, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
           size_t error_size) {
  if (is_thread_figures(kind, bytes)) return 0;  // figures for -statistics, no events
  if (kind != lumen::states::kIntervalRecord || bytes < lumen::states::kIntervalBytes10) {
    std::snprintf(error, error_size, "states record of kind %u and %u bytes is not an interval", kind, bytes);
    return 1;
  }
  StateInterval r{};  // format 1.0's has no stack times: each stack at the interval's end
  std::memcpy(&r, payload, bytes < sizeof r ? bytes : sizeof r);
  constexpr uint64_t kDay = 86'400'000'000'000;  // more in one interval is no reading of a clock
  if (r.blocked_ns > kDay || r.wait_ns > kDay || r.cpu_ns > kDay) {
    std::snprintf(error, error_size, "states interval of thread %u claims more than a day", r.thread_id);
    return 1;
  }
  emit(sink, r, stack_or(sink, r.blocked_stack, "<Blocked, no stack>"), r.blocked_stack_ns, metric_of(r.blocked),
       r.blocked_ns);
  emit(sink, r, stack_or(sink, r.wait_stack, "<Waiting for a CPU, no stack>"), r.wait_stack_ns, kWait, r.wait_ns);
  emit(sink, r, stack_or(sink, r.cpu_stack, "<On a CPU, no stack>"), 0, kOnCpu, r.cpu_ns);
  return 0;
}

// What the kernel counted for each thread watched: its run delay (compared
// with `wait`) and its lifetime (with `total`).
int process_figures(uint16_t kind, const void* payload, uint16_t bytes,
                    void (*figure)(void* context, const char* metric, const char* title, double amount),
                    void* context) {
  if (kind == lumen::states::kIntervalRecord) return 0;
  if (!is_thread_figures(kind, bytes)) return 1;
  ThreadFigures r;
  std::memcpy(&r, payload, sizeof r);
  figure(context, "wait", "Run delay of the process's threads (schedstat)", static_cast<double>(r.delay_ns));
  const uint64_t lifetime = r.time_ns > r.begin_ns ? r.time_ns - r.begin_ns : 0;
  figure(context, "total", "Lifetime of the process's threads", static_cast<double>(lifetime));
  return 0;
}

int configure(const lumen_experiment_facts* experiment, lumen_configuration* configuration, char*, size_t) {
  for (size_t i = 0; i < experiment->recorded_plugin_count; ++i)
    if (std::strcmp(experiment->recorded_plugins[i], "clock") == 0) configuration->metrics = kMetricsBesideClock.data();
  return 0;
}

// Clock profiling samples the time on a CPU with its stacks.
const lumen_sampled_part kSampledCpu = {kTotal, kOnCpu, "totalcpu"};

const lumen_analysis_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_analysis_descriptor),
    .name = "states",
    .version = "1.0",
    .data_file = lumen::states::kDataFile,
    .metrics = kMetrics,
    .metric_count = std::size(kMetrics),
    .configure = configure,
    .decode = decode,
    .decodes_in_parts = 1,  // each interval is its own events
    .sampled_part = &kSampledCpu,
    .process_figures = process_figures,
};

}  // namespace

LUMEN_EXPORT const lumen_analysis_descriptor* lumen_analysis_plugin() {
  return &kPlugin;
}
