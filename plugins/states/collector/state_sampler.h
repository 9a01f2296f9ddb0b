// One sampling interval of one thread: what it did since the previous one,
// from its schedstat counters, and where it is blocked now, from stat and
// syscall and its stack unwound without a signal.
#pragma once

#include <lumen/collector_plugin.h>

#include "thread_slots.h"

namespace lumen::states {

// On the thread of `slot` as it begins: the start of its first interval.
// A thread created while collecting (`created_ns` from
// lumen_thread_service.thread_created_ns, else 0) starts at its creator's call
// with the zero counters of its clone, and nothing is read; any other (the
// main thread, a forked child's: they ran before collection began here)
// has its counters read now, a round trip to the runtime's reading thread;
// when `attached` (collect -P), its first reading by the sampler begins its
// history instead: the roll call's hundreds of begins would wait for that
// thread one by one, the whole process paused meanwhile.
void begin_thread_history(const lumen_runtime& runtime, ThreadSlot& slot, uint64_t created_ns, bool attached);

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
  // The counters, when the ending thread knew them without reading its
  // schedstat (counters_of_self); then no file is used.
  bool counters_known = false;
  SchedStat counters;
};

// Step one, on the thread of `slot` (held by the caller: kReading or
// kEnding): reads its CPU-time clock and says which of its files the
// reading needs (none when it has not run since the previous reading).
// `final` is its last interval (the thread is ending or collection stops):
// its stack is not read.
void plan_reading(const ThreadSlot& slot, bool final, ThreadReading& reading, TaskFiles& files);

// On the ending thread of `slot`, after plan_reading and now_ns: its
// counters without a reading of its files, where the kernel's are known to
// be these. Its CPU time is its clock's; its run delay grows only when it
// arrives on a CPU after a wait, and its arrivals are its switches plus one
// (it is on a CPU), from getrusage. Known when it has not arrived on a CPU
// since the sampler's last reading of it (its run delay is that
// reading's), or, for a thread never read, not switched since its begin
// (its run delay did not grow since: it is then watched from its begin,
// not its creation). False otherwise: its schedstat is to be read.
bool counters_of_self(ThreadSlot& slot, ThreadReading& reading);

// Step two, once the files are read: writes the thread's interval since
// the previous reading, up to `now_ns`, to `stream`.
Reading sample_thread(const lumen_runtime& runtime, lumen_stream stream, ThreadSlot& slot, uint64_t now_ns,
                      bool final, const ThreadReading& reading, const TaskFiles& files);

}  // namespace lumen::states
