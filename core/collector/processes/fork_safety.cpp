#include "processes/fork_safety.h"

#include <pthread.h>

#include <mutex>

#include "interposers/timer_interposers.h"
#include "stacks/loadobject_tracker.h"
#include "stacks/object_snapshot.h"
#include "signals/program_signal_view.h"
#include "signals/signal_chain.h"
#include "stacks/stack_capture.h"
#include "time/tsc_clock.h"

namespace lumen::collector {

namespace {

// The unwinder gate first: a thread inside the tracker may be unwinding
// (its records' blocks), never the other way round; a snapshot refresh,
// which takes no lock of these, last.
void prepare() {
  unwinder_fork_prepare();
  loadobject_tracker_fork_prepare();
  object_snapshot_fork_prepare();
}

void parent() {
  object_snapshot_fork_done();
  loadobject_tracker_fork_done();
  unwinder_fork_parent();
}

void child() {
  tsc_clock_after_fork();
  timer_interposers_after_fork();
  object_snapshot_fork_done();
  loadobject_tracker_fork_done();
  unwinder_fork_child();
  release_inherited_holds();  // a child has nothing pending for itself
}

}  // namespace

void fork_safety_init() {
  static std::once_flag registered;
  std::call_once(registered, [] { pthread_atfork(prepare, parent, child); });
}

// As soon as the runtime is loaded, collecting or not: the program's own
// timer_create passes through the runtime's lock in any process.
__attribute__((constructor)) static void register_fork_safety() { fork_safety_init(); }

}  // namespace lumen::collector
