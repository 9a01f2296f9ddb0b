// Entry and exit of the collector runtime in the target process.
//
// collect preloads this library with the collector's variables
// (collector_variables.h: the experiment directory, the process it
// started). Any other process that inherits the preload leaves collection
// alone.
#include "runtime_state.h"

namespace {

__attribute__((constructor)) void lumen_collector_start() { lumen::collector::start_collection(); }
__attribute__((destructor)) void lumen_collector_stop() {
  // An exit from inside a seccomp sandbox: a system call of the stop's
  // could kill the process as it ends (what was recorded is on disk).
  if (!lumen::collector::sandboxed_here()) lumen::collector::stop_collection();
}

}  // namespace
