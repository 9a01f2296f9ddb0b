// The counters collect -h knows by name, and the parser of the -h value.
// Shared by the collector half (target and collect's checks) and the
// analysis half; no libpfm here (raw PMU names are resolved in
// collector/counter_encoding.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace lumen::hwc {

enum CounterFlags : uint32_t {
  kHardware = 1u,             // needs a hardware PMU
  kCountsCycles = 2u,         // shown as time too, at the CPU's clock rate
  kCountsInstructions = 4u,   // with cycles: CPI and IPC
  kCountsNanoseconds = 8u,    // its count is time (task-clock)
  // The kernel counts it inside its own code (the scheduler's switch or
  // migration of the thread), never in the program's: a counter excluding
  // the kernel counts none. The thread's stack when it runs again says
  // what led there.
  kCountedInKernel = 16u,
};

// A counter with a name of its own: an Oracle-style alias of a generic
// hardware event, or one of the kernel's software events.
struct NamedCounter {
  const char* name;         // as written after -h, and the metric keyword
  const char* title;        // "CPU Cycles"
  const char* event;        // the event it stands for: "PERF_COUNT_HW_CPU_CYCLES"
  uint32_t perf_type;       // perf_event_attr.type; UINT32_MAX: resolved through libpfm
  uint64_t perf_config;     // perf_event_attr.config
  const char* const* raw_candidates;  // libpfm names tried in turn when perf_type is UINT32_MAX
  uint64_t default_interval;
  const char* units;        // "CPU-cycles", "events", "nanoseconds"
  uint32_t flags;           // CounterFlags
};

const std::vector<NamedCounter>& named_counters();
const NamedCounter* find_named_counter(const std::string& name);

// The overflow interval of a raw PMU counter given without one.
inline constexpr uint64_t kRawDefaultInterval = 1000003;

// Whether `name` is a PMU event in the kernel's sysfs notation, PMU/EVENT/
// (msr/tsc/); if so, its two parts.
bool split_pmu_event_name(const std::string& name, std::string* pmu, std::string* event);

// One counter requested with -h, before it is resolved to an event.
struct CounterRequest {
  std::string name;
  uint64_t interval = 0;  // resolved: the given number, or on/hi/lo of the default
};

// Parses "COUNTER[,INTERVAL][,COUNTER2[,INTERVAL2]]...". INTERVAL is on (the
// counter's default), hi (a tenth of it), lo (ten times) or a positive
// number. A counter name may carry Oracle's register suffix "/N", which is
// accepted and ignored (the kernel assigns registers), or be a PMU event
// written PMU/EVENT/. Returns an empty
// string, or what is wrong, naming the offending word.
std::string parse_counter_list(const std::string& text, std::vector<CounterRequest>* counters);

// The default interval of a counter of this name: its alias's, else the raw one.
uint64_t default_interval_of(const std::string& name);

}  // namespace lumen::hwc
