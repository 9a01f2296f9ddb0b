// Counters as the kernel knows them: a name from -h resolved to a
// perf_event_attr (aliases and software events from the catalog, any other
// name through libpfm4), and opened for the calling thread. Not signal-safe.
#pragma once

// libpfm4 ships its own copy of the kernel's perf_event.h, which clashes
// with <linux/perf_event.h>: the collector half uses libpfm4's throughout.
#include <perfmon/pfmlib_perf_event.h>

#include <string>
#include <vector>

#include "../counter_catalog.h"

namespace lumen::hwc {

struct EncodedCounter {
  std::string name;      // as requested
  std::string event;     // what it stands for, for messages and listings
  perf_event_attr attr;  // sample_period = the interval; disabled, user space only (but counted_in_kernel)
  uint64_t interval = 0; // counts per recorded event
  bool hardware = false;
  // Counted where the kernel switches or moves the thread (context-switches,
  // cpu-migrations): opened with the kernel included (or it counts nothing),
  // its overflows signalled by perf's sigtrap (trap_overflow.h).
  bool counted_in_kernel = false;
  // A PMU that cannot sample (msr, power, cstate, uncore_*): counted, polled,
  // and recorded without a stack (collector_not_program_related). Its attr
  // has no sample period, and no exclude bits where the PMU refuses them.
  bool not_program_related = false;
  // With not_program_related, where the kernel counts the event only per CPU
  // (uncore PMUs) or LUMEN_HWC_COUNT_PER_CPU=1 asks for it: the CPUs it is
  // counted on, the whole machine's events; empty: per thread.
  std::vector<int> cpus;
  int counting_error = 0;  // errno of counting it, when sampling was refused and counting too
};

// Returns "" and fills `encoded`, or what is wrong ("unknown counter ...").
// Names are aliases, software events, libpfm4 events, or PMU/EVENT/ from
// sysfs; a PMU event's ability to sample is probed with perf_event_open.
std::string encode_counter(const CounterRequest& request, EncodedCounter* encoded);

// perf_event_open for the calling thread on any CPU; -1 with errno set.
int open_counter(const perf_event_attr& attr, int group_fd);

// perf_event_open for every task on `cpu`; -1 with errno set.
int open_counter_on_cpu(const perf_event_attr& attr, int cpu);

// Why the kernel refuses to open `counter` here, or "" when it opens it:
// a sentence naming the counter, its event, and the reason.
std::string counter_obstacle(const EncodedCounter& counter);

// Why the PMU cannot count these hardware counters at the same time, or ""
// (opened as one group, enabled, and read back: a group the PMU cannot
// schedule never runs).
std::string combination_obstacle(const std::vector<EncodedCounter>& counters);

// Whether the kernel offers a hardware PMU here (perf_event_open of
// PERF_COUNT_HW_CPU_CYCLES succeeds); otherwise the reason in `why`.
bool hardware_counters_available(std::string* why);

}  // namespace lumen::hwc
