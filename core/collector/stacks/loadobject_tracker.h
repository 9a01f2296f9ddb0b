// The load-object map as the target sees it: every object mapped at start,
// then every dlopen and dlclose, time-stamped, so analysis resolves a PC
// against what was loaded when its event happened.
#pragma once

#include <cstdint>

namespace lumen::collector {

// Not signal-safe (all of this file). Records the objects loaded now.
void loadobject_tracker_start(int loadobjects_stream);

// Compares what is loaded now with what was recorded; records the changes.
void loadobject_tracker_rescan();

// [signal-safe] The word holding the time of the latest map change
// recorded (0: none yet), stored before the change's record is written.
const volatile uint64_t* loadobject_latest_change_ns();

// Around fork (fork_safety.h): no thread is inside a rescan when the child
// is made; the lock is released in parent and child after it.
void loadobject_tracker_fork_prepare();
void loadobject_tracker_fork_done();

// Records generated code [start, start+size) named `name`; size 0 withdraws
// the code at `start`.
void loadobject_tracker_dynamic_code(const char* name, uint64_t start, uint64_t size);

}  // namespace lumen::collector
