// The threads the sampler watches: one slot per live thread, claimed in
// thread_begin and given back in thread_end. A slot is read by the sampler
// and by its own thread as it ends, never both at once: its phase says who
// holds it, and a thread ending while the sampler reads it waits for the
// read to finish, so its stack is never unmapped under the sampler.
#pragma once

#include <atomic>
#include <cstdint>

#include <lumen/collector_plugin.h>

#include "../states_record.h"
#include "task_files.h"

namespace lumen::states {

enum Phase : int {
  kFree = 0,     // no thread
  kLive = 1,     // a thread, nobody reading
  kReading = 2,  // the sampler (or stop) is reading it
  kEnding = 3,   // its thread is ending and writes its last interval
  kClosed = 4,   // collection ended: its last interval is written
  // kReading and kEnding with a thread asleep on the phase (a futex word)
  // until the holder lets go: its thread ending, or stop.
  kReadingAwaited = 5,
  kEndingAwaited = 6,
};

// A preempted thread's run delay in one interval, held until the thread's
// next sample (state_sampler.cpp): `at_ns` is the interval's middle, which
// the nearer sample takes.
struct HeldWait {
  uint64_t wait_ns;
  uint64_t at_ns;
  uint64_t reading_ns;
};

// What the sampler saw at the end of the thread's previous interval.
struct History {
  uint32_t tid = 0;      // whose files these are
  uint64_t last_ns = 0;
  SchedStat counters;
  // Its counters when the sampler began watching it, for its figures
  // (ThreadFigures) at the end; unknown when they could not be read.
  uint64_t first_ns = 0;
  SchedStat first_counters;
  bool first_known = false;
  // A thread that ran before collect -P loaded the runtime: its counters are
  // taken at the sampler's first reading of it, which begins its history
  // (at most an interval after its begin), so that its begin in the attach's
  // roll call asks the /proc reader nothing.
  bool baseline_pending = false;
  // A thread the program created while collecting (thread_created_ns):
  // its counters were zero at its clone, so its history starts at its
  // creator's call with zero counters and no reading. What it saw of
  // itself at its begin (before that, its switches; then now_ns and its
  // CPU-time clock) lets it end without a reading if it never left its CPU
  // in between and the sampler never read it (`sampled`): then it is
  // watched from its begin, its run delay unchanged (state_sampler.h).
  bool from_clone = false;
  bool sampled = false;  // the sampler wrote an interval of it
  uint64_t begin_ns = 0, begin_clock_ns = 0, begin_switches = 0;
  // The process's stopped time (ProcessStops) at the last reading.
  uint64_t stopped_seen_ns = 0;
  // Wall time the counters did not explain yet: a wait for a CPU still
  // going on (run delay is counted when the wait ends), CPU time of a
  // running thread not yet accounted; negative once they were counted.
  int64_t carry_ns = 0;
  // Time waiting for a CPU and on a CPU before any stack was captured on the
  // thread (clock profiling's first sample): charged to the first one.
  uint64_t unplaced_wait_ns = 0;
  uint64_t unplaced_cpu_ns = 0;
  // Run delay of intervals since its latest sample, each to go to the
  // nearer of that sample and the next (older ones go to the latest: it is
  // nearer them).
  static constexpr int kHeldWaits = 8;
  HeldWait held[kHeldWaits];
  int held_count = 0;
  // The thread's CPU-time clock at the last reading: unchanged, it has not
  // run since (and its latest stacks are still `latest`).
  uint64_t clock_ns = 0;
  lumen_latest_stacks latest{~uint64_t{0}, 0, ~uint64_t{0}};
  Blocked blocked = Blocked::kNone;
  uint64_t blocked_stack = ~uint64_t{0};
  bool known = false;  // blocked and blocked_stack describe last_ns
  // The last stack unwound: its registers and a hash of the stack memory
  // the unwinding read; the same again is the same stack.
  uint64_t unwound_pc = 0, unwound_sp = 0, unwound_end = 0, unwound_hash = 0;
  uint64_t unwound_stack = ~uint64_t{0};
  // Intervals blocked throughout in one place, merged until written.
  StateInterval pending{};
  uint64_t pending_since_ns = 0;
};

struct ThreadSlot {
  std::atomic<int> phase{kFree};  // also a futex word
  // The sampler's tick before which it need not read the thread again: a
  // thread found idle reading after reading is read less and less often
  // (its clock is a system call a reading). Only the sampler uses it.
  std::atomic<uint64_t> next_tick{0};
  // Whether it was idle at its last reading: the sampler counts the idle
  // threads due at a tick before holding any (read with next_tick).
  std::atomic<bool> idle{false};
  uint32_t idle_readings = 0;
  uint32_t tid = 0;
  // Its CPU-time clock at its last reading and the tick of that reading;
  // and the process's unexplained CPU time then (process_cpu.h), when that
  // reading found it idle at a reliably weighed tick. Only the sampler uses
  // them.
  uint64_t clock_seen_ns = 0;
  uint64_t clock_seen_tick = 0;
  // Its clock read before the process's at a tick that weighed it (the
  // last such tick): its CPU time from there to the next weighing's
  // reading explains part of the process's (process_cpu.h).
  uint64_t clock_weighed_ns = 0;
  uint64_t clock_weighed_tick = 0;
  int64_t quiet_mark = 0;
  bool quiet_marked = false;
  const volatile lumen_latest_stacks* latest_stacks = nullptr;  // in the thread's TLS
  History history;
};

inline constexpr int kMaxThreads = 8192;

// Claims a slot for the calling thread; nullptr when all are taken. The
// slot stays held (kReading) until the caller fills in its history and
// publishes it (kLive).
// Lets go of a held slot, now in `phase`, waking whoever waits for it.
void release_slot(ThreadSlot& slot, int phase);

// Waits, without spinning, while another holds the slot as `held`
// (kReading or kEnding); returns the phase it then has.
int await_slot(ThreadSlot& slot, int held);

ThreadSlot* claim_slot(uint32_t tid, uint64_t now_ns, const volatile lumen_latest_stacks* latest_stacks);
void publish_slot(ThreadSlot& slot);

// Slots [0, slot_count()) may be in use.
int slot_count();
ThreadSlot& slot_at(int index);

// Forgets every slot (a forked child: the parent's threads are not here),
// closing the descriptors the slots held.
void forget_all_slots();

}  // namespace lumen::states
