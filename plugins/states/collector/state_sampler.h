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

// One reading of a thread, in two steps around the batch that reads its
// files with other threads' (task_files.h).
struct ThreadReading {
  uint64_t clock_ns = 0;  // its CPU-time clock, read before its files
  bool gone = false;      // no clock: it ended without thread_end
  // How long the whole process was stopped (job control) since collection
  // began (process_stops.h).
  uint64_t stopped_total_ns = 0;
};

// Step one, on the thread of `slot` (held by the caller: kReading or
// kEnding): reads its CPU-time clock and says which of its files the
// reading needs (none when it has not run since the previous reading).
// `final` is its last interval (the thread is ending or collection stops):
// its stack is not read.
void plan_reading(const ThreadSlot& slot, bool final, ThreadReading& reading, TaskFiles& files);

// Step two, once the files are read: writes the thread's interval since
// the previous reading, up to `now_ns`, to `stream`.
Reading sample_thread(const lumen_runtime& runtime, lumen_stream stream, ThreadSlot& slot, uint64_t now_ns,
                      bool final, const ThreadReading& reading, const TaskFiles& files);

}  // namespace lumen::states
