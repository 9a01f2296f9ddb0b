// OpenMP tracing on the host. Every wait the trace records (a barrier, a
// lock, a critical section) or implies (a thread's wait at the end of a
// region, a worker's idle time between regions), less the explicit tasks
// its thread ran meanwhile, becomes events whose omptwait is their wall
// time. Through the descriptor's interval splits, the clock samples inside
// those intervals of their thread are ompwait and the others ompwork, and
// the off-CPU states inside them ompwait, as is a wait for a CPU inside a
// region's span (omp_spans.h); under an OMPT runtime (libomp), a sample no
// wait of the trace covers is decided by the thread's state the runtime
// reported at that very sample (omp_states.h): a wait or idle makes it
// ompwait. Regions and tasks are read by the views, and drawn on timelines
// as spans.
#include <lumen/analysis_plugin.h>

#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>

#include "../omp_record.h"
#include "omp_analysis.h"
#include "omp_spans.h"
#include "omp_states.h"
#include "omp_trace.h"
#include "omp_view_modes.h"

namespace lumen::omp {
namespace {

constexpr uint32_t kAllFlavors = LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED;

const lumen_metric_def kMetrics[] = {
    {"omptwait", "OpenMP Traced Wait", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "Wall time in OpenMP waits: barriers, locks, critical and ordered sections, atomics, taskwait, and idle "
     "workers, from the trace"},
    // With clock profiling: its samples split by whether they fell in a
    // wait of their thread (kIntervalSplit). The decoder leaves both at 0.
    // The default metric list shows them inclusive only, as gprofng does.
    {"ompwork", "OpenMP Work", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "CPU time doing work, serial or parallel, user code or the OpenMP runtime's (clock samples outside waits)",
     LUMEN_FLAVOR_INCLUSIVE},
    {"ompwait", "OpenMP Wait", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "Time waiting in the OpenMP runtime, on a CPU or not (clock samples and, with the off-CPU states, time "
     "blocked or waiting for a CPU inside waits), and time a thread working in a parallel region waited for a CPU",
     LUMEN_FLAVOR_INCLUSIVE},
    // The intervals whose clock samples are ompwait: the trace's waits, and
    // under an OMPT runtime the state windows (omp_states.h) outside them
    // whose state was a wait or idle.
    {"ompwaitspan", "OpenMP Wait Intervals", LUMEN_UNIT_NANOSECONDS, LUMEN_FLAVOR_EXCLUSIVE,
     "Wall time of the intervals whose clock samples are OpenMP Wait: the traced waits, and under an OMPT runtime "
     "each sample's stretch of its thread's time outside them where the runtime said the thread waited",
     0, 1},
};

enum Metric { kTracedWait, kWork, kWait, kWaitSpan };

// Clock profiling's CPU time inside waits is ompwait, outside ompwork. As
// Oracle defines OpenMP Wait, the off-CPU states (states plugin) inside
// waits are ompwait too, whether the thread sleeps or waits for a CPU, and
// so is a thread's wait for a CPU while it works in a parallel region (its
// span of the region).
const lumen_interval_split kIntervalSplits[] = {
    {kWaitSpan, "totalcpu", kWait, kWork, nullptr},
    {kWaitSpan, "lock", kWait, LUMEN_NO_METRIC, nullptr},
    {kWaitSpan, "sleep", kWait, LUMEN_NO_METRIC, nullptr},
    {kWaitSpan, "datapfault", kWait, LUMEN_NO_METRIC, nullptr},
    {kWaitSpan, "textpfault", kWait, LUMEN_NO_METRIC, nullptr},
    {kWaitSpan, "wait", kWait, LUMEN_NO_METRIC, kRegionSpanName},
};

void emit_wait(const OmpWait& wait, const lumen_event_sink* sink) {
  const int64_t duration = lumen_value_of(wait.end_ns - wait.begin_ns);
  const int64_t values[std::size(kMetrics)] = {duration, 0, 0, duration};
  const uint64_t stack = wait.stack_id != LUMEN_NO_STACK ? wait.stack_id
                                                         : sink->artificial_stack(sink->context,
                                                                                  wait_function_name(wait.kind));
  lumen_emit_event(sink, wait.end_ns, stack, wait.thread_id, -1, values);
}

// A window the state decides whose state is a wait or idle: its sample is
// ompwait. The split covers [time - duration, time], so the window
// [begin, end) ends at end - 1.
void emit_untraced_wait(const StateWindow& window, const lumen_event_sink* sink) {
  const StateMeaning meaning = state_meaning(window.state);
  if (!is_wait(meaning.state_class)) return;
  const uint64_t last = window.end_ns - 1;
  const int64_t values[std::size(kMetrics)] = {0, 0, 0, lumen_value_of(last - window.begin_ns)};
  lumen_emit_event(sink, last, sink->artificial_stack(sink->context, meaning.function), window.thread_id, -1, values);
}

void* decoder_begin(void*) { return new OmpTrace(); }

int decode(void* state, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink*,
           char* error, size_t error_size) {
  auto* trace = static_cast<OmpTrace*>(state);
  if (!is_record_kind(kind)) return lumen_unknown_record_kind("OpenMP", kind, error, error_size);
  if (!trace->add(kind, payload, bytes)) {
    std::snprintf(error, error_size,
                  "OpenMP record of kind %u (%u bytes) is damaged: too short for its kind, or its times out of order",
                  kind, bytes);
    return 1;
  }
  if (kind != kWaitRecord) return 0;
  OmpWait wait;
  std::memcpy(&wait, payload, sizeof wait);
  if (wait.end_ns < wait.begin_ns) {
    std::snprintf(error, error_size, "OpenMP wait ended at %llu ns, before it began at %llu ns",
                  static_cast<unsigned long long>(wait.end_ns), static_cast<unsigned long long>(wait.begin_ns));
    return 1;
  }
  trace->waits.push_back(wait);
  return 0;
}

int decoder_end(void* state, const lumen_event_sink* sink, char*, size_t) {
  std::unique_ptr<OmpTrace> trace(static_cast<OmpTrace*>(state));
  if (sink == nullptr) return 0;
  // Waits are emitted once every explicit task a thread ran in them is
  // known: that time is the tasks' work.
  const std::vector<OmpWait> recorded = trace->outside_explicit_tasks(trace->waits);
  const std::vector<OmpWait> implied = trace->outside_explicit_tasks(trace->implied_waits());
  for (const OmpWait& wait : recorded) emit_wait(wait, sink);
  for (const OmpWait& wait : implied) emit_wait(wait, sink);
  const std::vector<StateWindow> untraced = untraced_windows(state_windows(*trace), TraceWaits(recorded, implied));
  for (const StateWindow& window : untraced) emit_untraced_wait(window, sink);
  declare_stitches(*trace, recorded, implied, untraced, sink);
  emit_region_spans(*trace, sink);
  return 0;
}

const lumen_analysis_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_analysis_descriptor),
    .name = "omp",
    .version = "1.0",
    .data_file = kDataFile,
    .metrics = kMetrics,
    .metric_count = std::size(kMetrics),
    .decoder_begin = decoder_begin,
    .decode = decode,
    .decoder_end = decoder_end,
    .declares_stitches = 1,
    .views = kOmpViews,
    .view_count = kOmpViewCount,
    .fold_stack = fold_stack,
    .interval_splits = kIntervalSplits,
    .interval_split_count = std::size(kIntervalSplits),
};

}  // namespace
}  // namespace lumen::omp

LUMEN_EXPORT const lumen_analysis_descriptor* lumen_analysis_plugin() { return &lumen::omp::kPlugin; }
