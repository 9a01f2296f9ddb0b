#include "processes/fork_safety.h"

#include <pthread.h>

#include <mutex>

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

}  // namespace lumen::collector
