// Entry and exit of the collector runtime in the target process.
//
// collect preloads this library with the collector's variables
// (collector_variables.h: the experiment directory, the process it
// started). Any other process that inherits the preload leaves collection
// alone.
#include <lumen/collector_plugin.h>

#include <dlfcn.h>

#include <atomic>

#include "lifecycle/runtime_state.h"

namespace {

std::atomic<bool> g_began{false};

// First of this object's initializers (a priority runs before the unnumbered
// ones): its static objects' allocations are the runtime's too.
__attribute__((constructor(101))) void lumen_collector_begin() { g_began.store(true, std::memory_order_release); }

__attribute__((constructor)) void lumen_collector_start() { lumen::collector::start_collection(); }
// At exit, while collection still runs: libstdc++ frees the emergency
// exception pool its initializer allocated only when asked to, as valgrind
// and heaptrack ask it. Without that, heap tracing would show the pool as
// a leak of every program, a C program's too (there libstdc++ is loaded
// for this runtime alone). Destructors run after the program's atexit
// handlers and its own static objects' destructors.
void free_libstdcxx_pool() {
  using Freeres = void (*)();
  if (const auto freeres = reinterpret_cast<Freeres>(dlsym(RTLD_DEFAULT, "_ZN9__gnu_cxx9__freeresEv"))) freeres();
}

__attribute__((destructor)) void lumen_collector_stop() {
  // An exit from inside a seccomp sandbox: a system call of the stop's
  // could kill the process as it ends (what was recorded is on disk).
  if (lumen::collector::sandboxed_here()) return;
  // Unloaded after a detach (collect -P), which stopped collection and
  // gave back every thread's state: nothing is left to do.
  if (lumen::collector::attached() && !lumen::collector::collecting()) return;
  // Loaded into a running program (collect -P), whose pool it is.
  if (!lumen::collector::attached()) free_libstdcxx_pool();
  lumen::collector::stop_collection();
}

}  // namespace

// Read by preloaded collector halves from the process's first call on,
// before this object's constructor: a plain flag, no state to set up.
LUMEN_EXPORT int lumen_runtime_began(void) { return g_began.load(std::memory_order_acquire) ? 1 : 0; }
