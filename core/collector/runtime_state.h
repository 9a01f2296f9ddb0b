// Whether this process is being collected, and the runtime's start and stop.
#pragma once

#include <atomic>

namespace lumen::collector {

// [signal-safe] True between a successful start and the stop.
bool collecting();

// Not signal-safe: run on a thread the runtime sees begin or end.
void runtime_thread_begin();
void runtime_thread_end();

// Not signal-safe. Ends collection in this process for good (the API's
// collector_terminate_expt, and process exit).
void stop_collection();

}  // namespace lumen::collector
