// Job-control stops (SIGSTOP, SIGTSTP): they stop every thread of the
// process, the sampling thread with them, so no reading falls inside one.
// What gives one away is the sampling thread's own time: a cycle (its tick
// and its sleep of one period) that took longer than the period, its time
// on a CPU and waiting for one (its schedstat) and its waits for the
// reading thread explain had a stop of about that long in it. A wait for
// the reading thread is explained only as far as that thread's own time on
// a CPU and waiting for one (its schedstat, read in the same request) goes:
// on a loaded machine those waits are long, and a stop inside one is the
// rest. Another cause of such time (the whole machine paused by its
// hypervisor, a tracer stopping the sampling thread alone) is taken for a
// stop too.
#pragma once

#include <atomic>
#include <cstdint>

#include "task_files.h"

namespace lumen::states {

class ProcessStops {
 public:
  void start(uint64_t period_ns) { period_ns_ = period_ns; }

  // At the start of a tick: how late it comes.
  void begin_tick(uint64_t now_ns);

  // Whether the tick's first batch reads the sampling thread's and the
  // reading thread's own schedstat (`own` and `reader` then ask for it):
  // when the tick is late, and whenever the batch reads files anyway
  // (`batch_reads`), so that their run delays are known from a recent
  // reading.
  bool ask_own(bool batch_reads, TaskFiles& own, TaskFiles& reader) const;

  // Once the batch read `own` and `reader`: the stop seen, if any, is added
  // to the total.
  void counted(const TaskFiles& own, const TaskFiles& reader);

  // The time the process was stopped since collection began, which any
  // thread may read: a thread's reading takes what was added since its
  // previous one (a thread read less often than every tick too).
  uint64_t stopped_total_ns() const { return stopped_total_ns_.load(std::memory_order_relaxed); }

  void end_tick(uint64_t now_ns) { previous_end_ns_ = now_ns; }

  // A forked child's sampling thread is new.
  void forget() {
    tick_ = start_ns_ = previous_end_ns_ = late_ns_ = reader_wait_ns_ = 0;
    own_tick_ = own_start_ns_ = own_reader_wait_ns_ = 0;
    stopped_total_ns_.store(0, std::memory_order_relaxed);
    own_known_ = reader_known_ = false;
  }

  // Time the sampling thread waited for the runtime's reading thread.
  void add_reader_wait(uint64_t ns) { reader_wait_ns_ += ns; }

 private:
  uint64_t period_ns_ = 0;
  uint64_t tick_ = 0;
  uint64_t start_ns_ = 0;  // of this tick
  uint64_t previous_end_ns_ = 0;
  uint64_t late_ns_ = 0;
  uint64_t reader_wait_ns_ = 0;
  // At the sampling thread's last own reading:
  uint64_t own_tick_ = 0;
  uint64_t own_start_ns_ = 0;
  uint64_t own_reader_wait_ns_ = 0;
  std::atomic<uint64_t> stopped_total_ns_{0};
  SchedStat own_{};
  bool own_known_ = false;
  SchedStat reader_{};  // the reading thread's, read with own_
  bool reader_known_ = false;
};

}  // namespace lumen::states
