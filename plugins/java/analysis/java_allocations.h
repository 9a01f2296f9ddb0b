// Java allocations sampled by the JVM (JAVA_CLASSES' JavaAllocation
// records), as estimates of what was allocated.
//
// HotSpot samples a thread's allocations as a Poisson process over the
// bytes it allocates: the gaps between sample points are drawn from an
// exponential distribution of mean `interval` bytes, and an object is
// sampled when a point falls in it. An object of `size` bytes is therefore
// sampled with probability p = 1 - exp(-size / interval), and each sample
// stands for 1/p objects of its size and size/p bytes (the Horvitz-Thompson
// estimate, unbiased; tcmalloc's and Go's heap profiles scale the same
// way). For objects much smaller than the interval a sample stands for
// about `interval` bytes; one larger than it, for itself.
#pragma once

#include <lumen/analysis_plugin.h>

#include <cstdint>
#include <string>

#include "../java_record.h"

namespace lumen::java {

// An allocation record (kAllocationRecord, or kTrackedAllocationRecord
// with its tag; `tag` is 0 for an untracked one) and its class name, when
// `bytes` hold them; false for anything else.
bool read_allocation_record(uint16_t kind, const void* payload, uint16_t bytes, JavaAllocation& sample,
                            std::string& klass, uint64_t& tag);

struct AllocationEstimate {
  double objects;
  double bytes;
};
AllocationEstimate estimate_allocation(uint64_t size, uint32_t interval);

// The metrics of an experiment that sampled Java allocations, in the order
// decode_allocation fills an event's values.
enum AllocationMetric { kAllocatedBytes = 0, kAllocatedObjects = 1, kAllocationSamples = 2, kAllocationMetrics = 3 };
extern const lumen_metric_def kAllocationMetricDefs[kAllocationMetrics];

// Emits one allocation record's estimate as an event on its Java stack;
// non-zero (with a message) when the record is not one.
int decode_allocation(uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
                      size_t error_size);

// er_print -jallocs: the estimates by class.
int run_allocations_by_class(const lumen_view_host* host, char* error, size_t error_size);

}  // namespace lumen::java
