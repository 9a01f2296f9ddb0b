// The runtime's periodic work that is not CPU-time sampling (collect -S
// sample points) runs on a thread of its own with every signal blocked: a
// signal would cut the program's sleep, poll or condition wait short
// (signal(7), "Interruption of system calls"), and this thread never sends
// one. The program never sees it except as one more task in /proc.
#pragma once

#include <cstdint>

namespace lumen::collector {

// Not signal-safe. Starts the thread, which calls `tick` every `period_ns`
// of CLOCK_MONOTONIC (first one period after now) until
// sample_thread_stop. A period <= 0 starts nothing. Returns false when the
// thread could not be created.
bool sample_thread_start(long long period_ns, void (*tick)());

// Not signal-safe. Wakes the thread at once, waits for its end; a tick in
// progress finishes first.
void sample_thread_stop();

// In a forked child: the parent's thread does not exist here; start anew
// with the same period and tick.
void sample_thread_after_fork();

}  // namespace lumen::collector
