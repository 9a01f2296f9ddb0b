// One sampling interval of one thread: what it did since the previous one,
// from its schedstat counters, and where it is blocked now, from stat and
// syscall and its stack unwound without a signal.
#pragma once

#include <lumen/collector_plugin.h>

#include "thread_slots.h"

namespace lumen::states {

// Reads the thread's counters as they are when it
// begins (or when collection begins on it: the main thread, a forked
// child's thread have run before), the start of its first interval.
void begin_thread_history(const lumen_runtime& runtime, ThreadSlot& slot);

enum class Reading {
  kRead,    // its interval is written
  kUnread,  // its files could not be read: nothing written
  kGone,    // it ended without thread_end: its last interval is written
};

// Reads the thread of `slot` (held by the caller: kReading or kEnding) at
// `now_ns` and writes its interval since the previous one to `stream`.
// `final` is its last interval (the thread is ending or collection stops):
// its stack is not read.
Reading sample_thread(const lumen_runtime& runtime, lumen_stream stream, ThreadSlot& slot, uint64_t now_ns,
                      bool final);

}  // namespace lumen::states
