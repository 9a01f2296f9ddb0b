// The hwc plugin's records, shared by its two halves: one declaration of each
// layout, checked by static_assert.
#pragma once

#include <cstdint>

namespace lumen::hwc {

inline constexpr const char* kDataFile = "hwcounters";

// Record kinds in "hwcounters".
inline constexpr uint16_t kOverflowRecord = 1;  // CounterOverflow
inline constexpr uint16_t kSettingsRecord = 2;  // CounterSettings, once per process at start

// The most counters one experiment collects (each thread opens one
// perf_event per counter; the settings record has room for this many).
inline constexpr uint32_t kMaxCounters = 6;

enum OverflowFlags : uint16_t {
  // Counts accrued after the thread's last overflow, read at its end: they
  // belong to no interrupted stack (the artificial collector_final_counters).
  kFinalCounts = 1,
  // Counts that no instruction of the program caused: whole intervals of a
  // counter whose PMU cannot sample, polled (collector_not_program_related).
  kNotProgramRelated = 2,
};

// One overflow of counter `counter` (its position in the -h list) on thread
// `thread_id`: `count` is the counter's increment since the previous record
// of that counter on that thread, read from the counter itself, so an
// overflow whose signal coalesced with another loses nothing.
struct CounterOverflow {
  uint64_t time_ns;
  uint64_t stack_id;  // LUMEN_NO_STACK with kFinalCounts / kNotProgramRelated
  uint64_t count;
  uint32_t thread_id;
  uint16_t counter;
  uint16_t flags;  // OverflowFlags
};
static_assert(sizeof(CounterOverflow) == 32, "record layout");

// What the process collected: the counters in -h order with their overflow
// intervals (the option string says which, the record what was armed).
struct CounterSettings {
  uint64_t intervals[kMaxCounters];
  uint32_t counter_count;
  uint32_t reserved;
};
static_assert(sizeof(CounterSettings) == 56, "record layout");

}  // namespace lumen::hwc
