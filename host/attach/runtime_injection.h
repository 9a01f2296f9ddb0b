// Loading the collector runtime into a running process and taking it out
// again (collect -P). The runtime is opened with the process's own dlopen,
// called on a thread stopped where that is safe (process_threads.h); each
// thread's collection is begun and ended by a call on that thread; the
// detach leaves no thread, handler, timer or descriptor of the collector's,
// and unloads it.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace lumen::attach {

struct InjectedRuntime {
  pid_t pid = 0;
  std::string experiment;  // its log names the collector's threads
  uint64_t handle = 0;  // dlopen's, in the process
  uint64_t dlclose = 0;
  uint64_t attach_thread = 0;  // the runtime's lumen_attach_thread, ...
  uint64_t detach_thread = 0;
  uint64_t detach = 0;
  uint64_t unloading = 0;  // lumen_unloading: called right before dlclose
  uint64_t attach_calls = 0;  // the program's calls to the plugins' interposers, and back
  bool calls_to_redirect = false;  // a plugin started there has interposers
  uint64_t detach_calls = 0;
};

// Loads `runtime` (a path the process can open) into `pid` and starts
// collection into `experiment` (its plan written there). Throws with the
// reason when it cannot (the runtime, if loaded, is unloaded again).
InjectedRuntime inject_runtime(pid_t pid, const std::string& runtime, const std::string& experiment);

struct ThreadRollCall {
  size_t begun = 0;    // threads whose collection began (or ended)
  size_t skipped = 0;  // the collector's own, or begun already
  size_t missed = 0;   // not stoppable, or busy in the runtime every time asked
  size_t ended = 0;    // ended before they could be asked (short-lived threads)
  size_t inside = 0;   // never seen outside the collector's code and its interposers (their collection may have ended)
};

// Begins collection on every thread of the process, again until a pass
// finds no new thread; then the program's calls of the functions the
// plugins interpose on lead to their interposers.
ThreadRollCall begin_every_thread(const InjectedRuntime& runtime);

struct DetachOutcome {
  ThreadRollCall threads;
  bool unloaded = false;  // false: the runtime stays loaded, inert (why_loaded says why)
  // 1: a thread of the collector's did not end; 2: a thread was never
  // stopped outside its code; 3: a thread stayed inside an interposer (a
  // wait that had not ended)
  int why_loaded = 0;
};

// Leads the program's calls back to its own functions, ends every
// thread's collection (each once outside the interposers), then
// collection, and unloads the runtime.
DetachOutcome detach_runtime(const InjectedRuntime& runtime);

}  // namespace lumen::attach
