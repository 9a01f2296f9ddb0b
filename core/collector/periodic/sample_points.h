// Sample points: process-wide figures (rusage, resident memory) recorded
// periodically (collect -S), on a signal (collect -l), through the API
// (collector_sample) and at start and end.
#pragma once

#include <cstdint>

#include "collection_plan.h"

namespace lumen::collector {

// Not signal-safe. Records the START sample, starts the sample thread for
// the periodic ones (periodic_work.h) and claims the signals the plan names
// (-l: a signal the user asked for).
void samples_start(int samples_stream, const metadata::CollectionPlan& plan);

// Not signal-safe. In a forked child being collected: threads are not
// inherited and /proc/self was the parent's; start again.
void samples_after_fork();

// Not signal-safe. Stops the sample thread and records the END sample.
void samples_stop();

// [signal-safe] Records one sample point now.
void record_sample(uint32_t reason, const char* name);

}  // namespace lumen::collector
