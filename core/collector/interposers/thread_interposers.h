// What the thread-creation interposer offers the rest of the runtime: a
// thread's end heard through a key's destructor.
#pragma once

namespace lumen::collector {

// Not signal-safe in general; safe where no other thread-specific value
// of the calling thread was set yet beyond the first 32 keys' block (it
// then allocates nothing). The calling thread's end runs
// runtime_thread_end, as for a thread the runtime started.
void hear_thread_end_here();

// Not signal-safe. No thread's end is heard any more (before the runtime
// is unloaded: the key's destructor is its code).
void stop_hearing_thread_ends();

}  // namespace lumen::collector
