// Whether a thread the sampler did not read may have run: the process's
// CPU-time clock (one system call) against the clocks the sampler reads
// anyway. What the process used since the previous weighing (the last tick
// that read its clock: the sampler weighs only at ticks where idle threads
// are due), less what the threads read at both used (the program's threads
// that ran, read first, and the collector's own threads), is what every
// other thread used together, plus threads that ended meanwhile. A thread found idle need not
// have its clock read while that remainder, summed since its last reading,
// stays within a tolerance: none of them ran.
//
// The sum telescopes: the clocks are read a few microseconds before the
// process clock, and what a thread on a CPU runs in between (the sampling
// thread's system call, a busy thread whose time the kernel updated
// meanwhile) counts at one tick and is taken back at the next, so only the
// two ends of a sum carry such noise, and it only adds: the end a thread's
// reading refers to must be a tick whose readings took no longer than
// usual (no preemption or interrupt among them), and the tolerance covers
// the rest.
#pragma once

#include <lumen/collector_plugin.h>

#include <cstddef>
#include <cstdint>

namespace lumen::states {

class ProcessCpu {
 public:
  // Unexplained CPU time summed since a thread's last reading, at or below
  // which no other thread is taken to have run: a thread woken from a
  // block runs for more than this before it blocks again (its return from
  // the system call and its next one).
  static constexpr int64_t kToleranceNs = 2'000;

  // At the start of the tick, before the clocks of the threads read first.
  void begin_tick(const lumen_runtime& runtime, uint64_t tick);

  // Whether weighing the process's clock at this tick pays: it reads one
  // clock per collector thread and the process's, and spares those of the
  // idle threads due now (`due_idle`) when none of them ran.
  bool pays(uint64_t due_idle) const { return due_idle >= collectors_ + 1; }

  // The tick of the last weighing that read the process's clock (0: none,
  // or it could not be read): a thread's clock read before it and again at
  // this tick's weighing explains its CPU time in between.
  uint64_t weighed_tick() const { return weighed_tick_; }

  // The program's threads' clocks are read next, then weigh(): the clock
  // of each, with its CPU time since its reading at the last weighing when
  // it was read then (`explains`).
  void sequence_begins(const lumen_runtime& runtime) { started_ns_ = runtime.time->now_ns(); }
  void thread_read(bool explains, uint64_t ns) {
    if (explains) explained_ns_ += static_cast<int64_t>(ns);
  }

  // Reads the collector threads' clocks (the sampling thread's, `own`,
  // last) and the process's, and adds what none of the read clocks
  // explains to the total.
  void weigh(const lumen_runtime& runtime, uint32_t own);

  // Whether the last reading of the process's clock (this tick's, when it
  // weighed) was reliable: a thread's reading after it may refer to
  // `total()`. Ticks that do not weigh leave both as they were.
  bool reliable() const { return reliable_; }
  // The unexplained CPU time summed over the ticks, up to this one's
  // process clock (kUnknownNs added where the process's clock could not
  // be read).
  int64_t total() const { return total_ns_; }
  // The same before this tick: a reading of a thread's clock taken before
  // this tick's process clock refers to it.
  int64_t total_before() const { return total_before_ns_; }
  bool reliable_before() const { return reliable_before_; }
  // Whether a thread whose last reading referred to `mark` has not run.
  // Only at a tick that read the process's clock.
  bool quiet_since(int64_t mark) const { return weighed_tick_ == tick_ && total_ns_ - mark <= kToleranceNs; }

  // Whether `tid` is one of the collector's threads (whose clock is read
  // every tick: a program thread is never taken for one).
  bool is_collector(uint32_t tid) const;

  void forget() { *this = ProcessCpu{}; }

  static constexpr int64_t kUnknownNs = int64_t{1} << 40;

 private:
  static constexpr size_t kMaxCollectors = 32;
  uint64_t tick_ = 0;
  uint64_t started_ns_ = 0;
  int64_t explained_ns_ = 0;
  int64_t total_ns_ = 0;
  int64_t total_before_ns_ = 0;
  bool reliable_ = false;
  bool reliable_before_ = false;
  // At the last weighed tick:
  uint64_t weighed_tick_ = 0;
  uint64_t span_floor_ns_ = 0;  // of the readings' wall time (process_cpu.cpp)
  uint64_t process_ns_ = 0;
  size_t collectors_ = 0;  // listed at this tick's start
  size_t weighed_count_ = 0;
  uint32_t tids_[kMaxCollectors] = {};
  uint64_t clocks_[kMaxCollectors] = {};
  bool read_[kMaxCollectors] = {};
};

}  // namespace lumen::states
