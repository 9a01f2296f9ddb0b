// Counters of the whole machine: an event the kernel counts only per CPU
// (an uncore PMU), opened once per process on each CPU its PMU names and
// read as the sum over them. The counts are no thread's: the hwc source
// polls them from a process timer and records them without a stack.
#pragma once

#include <perfmon/pfmlib_perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

#include "../hwc_record.h"

namespace lumen::hwc {

// Opens counter `index` on each of `cpus` and enables it. Returns "" or
// what is wrong (nothing stays open then). Not signal-safe.
std::string open_cpu_wide(uint32_t index, const perf_event_attr& attr, const std::vector<int>& cpus);

// [signal-safe] The sum of counter `index` over its CPUs; false when it is
// not open or a read failed.
bool read_cpu_wide(uint32_t index, uint64_t* value);

// Stops counter `index` and closes its descriptors. Not signal-safe; no
// reader may run at the same time.
void close_cpu_wide(uint32_t index);

// In a forked child: closes the child's copies of counter `index`'s
// descriptors without stopping the counter (an ioctl on a copy would stop
// the parent's).
void forget_cpu_wide(uint32_t index);

}  // namespace lumen::hwc
