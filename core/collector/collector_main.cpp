// Entry and exit of the collector runtime in the target process.
//
// collect preloads this library with LUMEN_EXPERIMENT (the experiment
// directory) and LUMEN_TARGET_PID (the process it started). Any other process
// that inherits the environment leaves collection alone.
#include "runtime_state.h"

namespace {

__attribute__((constructor)) void lumen_collector_start() { lumen::collector::start_collection(); }
__attribute__((destructor)) void lumen_collector_stop() { lumen::collector::stop_collection(); }

}  // namespace
