#include "state_sampler.h"

#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "../states_record.h"

namespace lumen::states {

namespace {

constexpr uint64_t kNoStack = LUMEN_NO_STACK;

// A page fault's kind, as far as it can be told afterwards: the thread
// faulted on its instruction fetch (text) when the page of its PC is not
// resident, else on data.
Blocked fault_kind(uint64_t pc) {
  unsigned char resident = 1;
  const long page = sysconf(_SC_PAGESIZE);
  void* start = reinterpret_cast<void*>(pc & ~static_cast<uint64_t>(page - 1));
  if (pc != 0 && mincore(start, static_cast<size_t>(page), &resident) == 0 && (resident & 1) == 0)
    return Blocked::kTextFault;
  return Blocked::kDataFault;
}

// The thread's latest stacks (words in its TLS), when they were read along
// with its stack bytes: one system call for both.
struct LatestWords {
  const volatile lumen_latest_stacks* at = nullptr;  // nullptr: not to be read
  lumen_latest_stacks stacks{kNoStack, 0, kNoStack};
  bool read = false;
};

// A hash of [sp, end) of this process's memory; 0 when it cannot be read.
// Reads `latest`'s words in the same call, when they are not read yet.
uint64_t stack_hash(uint64_t sp, uint64_t end, LatestWords* latest) {
  static unsigned char bytes[64 * 1024];
  if (end <= sp || end - sp > sizeof bytes) return 0;
  lumen_latest_stacks words{kNoStack, 0, kNoStack};
  const bool with_words = latest != nullptr && latest->at != nullptr && !latest->read;
  iovec local[2] = {{bytes, end - sp}, {&words, sizeof words}};
  iovec remote[2] = {{reinterpret_cast<void*>(sp), end - sp},
                     {const_cast<lumen_latest_stacks*>(with_words ? latest->at : nullptr), sizeof words}};
  // A partial read stops at the first range it cannot read: the stack's
  // bytes come first, the words only after them.
  const ssize_t n = process_vm_readv(self_pid(), local, with_words ? 2 : 1, remote, with_words ? 2 : 1, 0);
  if (n < static_cast<ssize_t>(end - sp)) return 0;
  if (with_words && n == static_cast<ssize_t>(end - sp + sizeof words)) latest->stacks = words, latest->read = true;
  uint64_t hash = 0xcbf29ce484222325u;  // FNV-1a over 64-bit words
  uint64_t i = 0;
  for (; i + 8 <= end - sp; i += 8) {
    uint64_t word;
    std::memcpy(&word, bytes + i, sizeof word);
    hash = (hash ^ word) * 0x100000001b3u;
  }
  for (; i < end - sp; ++i) hash = (hash ^ bytes[i]) * 0x100000001b3u;
  return hash | 1;
}

// The blocked thread's stack: the one unwound last time when its registers
// and the stack bytes that unwinding read are unchanged (a thread blocking
// again where it blocked before), else unwound anew.
uint64_t stack_of(const lumen_runtime& runtime, History& h, const Whereabouts& where, LatestWords* latest) {
  if (h.unwound_end != 0 && where.pc == h.unwound_pc && where.sp == h.unwound_sp &&
      stack_hash(where.sp, h.unwound_end, latest) == h.unwound_hash)
    return h.unwound_stack;
  uint64_t end = 0;
  const uint64_t stack = runtime.stacks->capture_stack_of_blocked(where.pc, where.sp, 0, &end);
  h.unwound_pc = where.pc, h.unwound_sp = where.sp, h.unwound_stack = stack;
  h.unwound_end = stack == kNoStack ? 0 : end;
  h.unwound_hash = h.unwound_end != 0 ? stack_hash(where.sp, end, latest) : 0;
  if (h.unwound_hash == 0) h.unwound_end = 0;
  return stack;
}

struct Observation {
  Blocked blocked = Blocked::kNone;
  uint64_t stack = kNoStack;
  bool known = false;
};

// Where the thread is now. Its stack counts only when its counters did not
// move while it was read (it stayed off the CPU throughout).
Observation observe(const lumen_runtime& runtime, History& h, const ThreadReading& reading, const TaskFiles& files,
                    LatestWords* latest) {
  Observation seen;
  char state = '?';
  if (!files.state(&state)) return seen;
  if (state == 'R') {
    seen.known = true;  // on a CPU or waiting for one: not blocked
    return seen;
  }
  Whereabouts where;
  where.state = state;
  if (!files.whereabouts(&where) || where.running) return seen;
  if (state == 'T' || state == 't') {
    seen.blocked = Blocked::kStopped;
  } else if (where.call >= 0) {
    seen.blocked = where.call == SYS_futex ? Blocked::kLock : Blocked::kSleep;
  } else {
    seen.blocked = state == 'D' ? fault_kind(where.pc) : Blocked::kSleep;
  }
  if (where.pc != 0 && where.sp != 0) seen.stack = stack_of(runtime, h, where, latest);
  // The clock was read before its files: unchanged now, the thread
  // stayed off the CPU throughout.
  uint64_t clock_after = 0;
  if (!thread_cpu_clock_ns(h.tid, &clock_after) || clock_after != reading.clock_ns) {
    seen.stack = kNoStack;  // it ran while being read: state and stack may be stale
    return seen;
  }
  seen.known = true;
  return seen;
}

// The thread's latest stacks, read with a checked copy: the words live in
// the thread's TLS, which a thread that ended without thread_end (a raw
// exit system call) no longer has.
lumen_latest_stacks latest_stacks(const ThreadSlot& slot) {
  lumen_latest_stacks words{kNoStack, 0, kNoStack};
  if (slot.latest_stacks == nullptr) return words;
  iovec local{&words, sizeof words};
  iovec remote{const_cast<lumen_latest_stacks*>(slot.latest_stacks), sizeof words};
  if (process_vm_readv(self_pid(), &local, 1, &remote, 1, 0) != sizeof words) return {kNoStack, 0, kNoStack};
  return words;
}

// Intervals of a thread blocked throughout in the same place (it has not
// run) are written as one, up to this much wall time: an idle thread costs
// a record a while, not one a reading.
constexpr uint64_t kMergedSpanNs = 100'000'000;

bool blocked_throughout(const StateInterval& i) { return i.wait_ns == 0 && i.cpu_ns == 0 && i.blocked_ns > 0; }

void write_pending(const lumen_runtime& runtime, lumen_stream stream, History& h) {
  if (h.pending.blocked_ns > 0) runtime.recording->write_record(stream, kIntervalRecord, &h.pending, sizeof h.pending);
  h.pending = StateInterval{};
}

// Writes the interval, or merges it into the one pending (the same block,
// nothing else in either).
void emit(const lumen_runtime& runtime, lumen_stream stream, History& h, const StateInterval& interval, bool final) {
  const bool merges = blocked_throughout(interval) && h.pending.blocked_ns > 0 &&
                      interval.blocked == h.pending.blocked && interval.blocked_stack == h.pending.blocked_stack &&
                      interval.blocked_stack_ns == 0 && h.pending.blocked_stack_ns == 0;
  if (merges) {
    h.pending.blocked_ns += interval.blocked_ns;
    h.pending.time_ns = interval.time_ns;
  } else {
    write_pending(runtime, stream, h);
    if (blocked_throughout(interval)) {
      h.pending = interval;
      h.pending_since_ns = interval.time_ns - interval.blocked_ns;
    } else if (interval.blocked_ns + interval.wait_ns + interval.cpu_ns > 0) {
      runtime.recording->write_record(stream, kIntervalRecord, &interval, sizeof interval);
    }
  }
  if (final || h.pending.time_ns - h.pending_since_ns >= kMergedSpanNs) write_pending(runtime, stream, h);
}

// A held wait as an interval of its own, on `stack`, at its interval's
// middle: when it happened, which decides the state of the program it
// counts in (an OpenMP barrier's wait, a task's).
void write_held_wait(const lumen_runtime& runtime, lumen_stream stream, History& h, const HeldWait& held,
                     uint64_t stack) {
  StateInterval wait{};
  wait.time_ns = held.reading_ns;
  wait.thread_id = h.tid;
  wait.wait_ns = held.wait_ns;
  wait.wait_stack = stack;
  wait.wait_stack_ns = held.at_ns;
  wait.blocked_stack = wait.cpu_stack = kNoStack;
  emit(runtime, stream, h, wait, false);
}

// Holds a preempted thread's wait for its next sample; when too many are
// held, the oldest goes to the latest sample (it is nearer them).
void hold_wait(const lumen_runtime& runtime, lumen_stream stream, History& h, const HeldWait& wait) {
  if (wait.wait_ns == 0) return;
  if (h.held_count == History::kHeldWaits) {
    write_held_wait(runtime, stream, h, h.held[0], h.latest.sample_stack);
    std::copy(h.held + 1, h.held + h.held_count, h.held);
    --h.held_count;
  }
  h.held[h.held_count++] = wait;
}

// Gives each held wait to the sample nearer its time: the thread's
// previous one (h.latest) or `now`'s, when it is a newer one.
void release_held_waits(const lumen_runtime& runtime, lumen_stream stream, History& h,
                        const lumen_latest_stacks& now) {
  const bool newer = now.sample_ns != h.latest.sample_ns && now.sample_stack != kNoStack;
  const bool previous = h.latest.sample_stack != kNoStack && h.latest.sample_ns != 0;
  const uint64_t boundary = !newer ? UINT64_MAX : previous ? h.latest.sample_ns / 2 + now.sample_ns / 2 : 0;
  for (int i = 0; i < h.held_count; ++i) {
    const uint64_t stack = h.held[i].at_ns < boundary ? h.latest.sample_stack : now.sample_stack;
    write_held_wait(runtime, stream, h, h.held[i], stack);
  }
  h.held_count = 0;
}

}  // namespace

void begin_thread_history(const lumen_runtime& runtime, ThreadSlot& slot, uint64_t created_ns, bool attached) {
  History& h = slot.history;
  h.tid = slot.tid;
  if (attached && created_ns == 0) {
    h.baseline_pending = true;
    return;
  }
  // Its switches first: one after them falls between begin and end, so
  // the thread cannot end as if it had stayed on its CPU.
  uint64_t switches = 0, clock = 0;
  if (created_ns != 0 && created_ns <= h.last_ns && own_switches(&switches)) {
    const uint64_t begin = runtime.time->now_ns();
    if (thread_cpu_clock_ns(slot.tid, &clock)) {
      h.from_clone = true;
      h.begin_ns = begin, h.begin_clock_ns = clock, h.begin_switches = switches;
      h.last_ns = h.first_ns = created_ns;
      h.counters = h.first_counters = SchedStat{};
      h.first_known = true;
      return;
    }
  }
  SchedStat counters;
  if (read_task_schedstat(runtime, slot.tid, &counters)) {
    h.counters = h.first_counters = counters;
    h.first_ns = h.last_ns;
    h.first_known = true;
  }
}

bool counters_of_self(ThreadSlot& slot, ThreadReading& reading) {
  History& h = slot.history;
  uint64_t switches = 0;
  if (reading.gone || !own_switches(&switches)) return false;
  const uint64_t arrivals = switches + 1;
  if (arrivals == h.counters.switches) {
    // On a CPU at the last reading and ever since.
    reading.counters = SchedStat{reading.clock_ns, h.counters.delay_ns, arrivals};
  } else if (h.from_clone && !h.sampled && switches == h.begin_switches && reading.clock_ns >= h.begin_clock_ns) {
    // On its CPU from its begin to now: its run delay then is unknown (its
    // wait before it first ran), and did not grow since.
    h.last_ns = h.first_ns = h.begin_ns;
    h.counters = h.first_counters = SchedStat{h.begin_clock_ns, 0, arrivals};
    reading.counters = SchedStat{reading.clock_ns, 0, arrivals};
  } else {
    return false;
  }
  reading.counters_known = true;
  return true;
}

void plan_reading(const ThreadSlot& slot, bool final, ThreadReading& reading, TaskFiles& files) {
  const History& h = slot.history;
  // Its CPU-time clock first: a thread that has not run since the previous
  // reading is where it was, and none of its files is read.
  reading.gone = !thread_cpu_clock_ns(slot.tid, &reading.clock_ns);
  const bool moved = final || !h.known || reading.clock_ns != h.clock_ns;
  files.wants_counters = !reading.gone && moved;
  files.wants_whereabouts = !reading.gone && moved && !final;
}

// The first reading of a thread whose baseline was left to it
// (baseline_pending): its counters, state and stacks now begin its history;
// nothing is written. A thread gone or ending by then has none.
Reading begin_at_first_reading(const lumen_runtime& runtime, ThreadSlot& slot, uint64_t now_ns, bool final,
                               const ThreadReading& reading, const TaskFiles& files, const SchedStat& now) {
  History& h = slot.history;
  if (reading.gone || final) return reading.gone ? Reading::kGone : Reading::kRead;
  LatestWords latest_words;
  latest_words.at = slot.latest_stacks;
  const Observation seen = observe(runtime, h, reading, files, &latest_words);
  h.baseline_pending = false;
  h.first_ns = h.last_ns = now_ns;
  h.counters = h.first_counters = now;
  h.first_known = true;
  h.stopped_seen_ns = reading.stopped_total_ns;
  h.blocked = seen.blocked;
  h.blocked_stack = seen.stack;
  h.known = seen.known;
  h.clock_ns = reading.clock_ns;
  h.latest = latest_words.read ? latest_words.stacks : latest_stacks(slot);
  return Reading::kRead;
}

Reading sample_thread(const lumen_runtime& runtime, lumen_stream stream, ThreadSlot& slot, uint64_t now_ns,
                      bool final, const ThreadReading& reading, const TaskFiles& files) {
  History& h = slot.history;
  h.tid = slot.tid;
  const uint64_t clock = reading.clock_ns;
  const bool gone = reading.gone;
  SchedStat now = h.counters;
  if (gone) {
    // Ended without thread_end (a raw exit): its last interval ends at the
    // last reading, and its TLS is not read again.
    slot.latest_stacks = nullptr;
    final = true;
    now_ns = h.last_ns;
  } else if (reading.counters_known) {
    now = reading.counters;
  } else if (files.wants_counters) {
    if (!files.counters(&now) && !final) return Reading::kUnread;
  }
  if (h.baseline_pending) return begin_at_first_reading(runtime, slot, now_ns, final, reading, files, now);
  const bool ran = now.switches != h.counters.switches || now.cpu_ns != h.counters.cpu_ns;
  LatestWords latest_words;  // read with the blocked thread's stack, if it is read
  latest_words.at = slot.latest_stacks;
  Observation seen{h.blocked, h.blocked_stack, h.known};
  if (final) {
    seen = Observation{};  // an ending thread runs; collection's end comes from a running thread or a frozen one
    if (!ran && h.known) seen = Observation{h.blocked, h.blocked_stack, true};
  } else if (ran || !h.known) {
    seen = observe(runtime, h, reading, files, &latest_words);
  }

  const int64_t wall = now_ns > h.last_ns ? static_cast<int64_t>(now_ns - h.last_ns) : 0;
  const auto cpu = static_cast<int64_t>(now.cpu_ns - h.counters.cpu_ns);
  const auto delay = static_cast<int64_t>(now.delay_ns - h.counters.delay_ns);
  // What the counters do not explain is blocked time where the thread was
  // seen blocked at one end of the interval. A thread runnable at both ends
  // may be waiting for a CPU (its run delay is counted when the wait ends)
  // or running (its CPU time is counted at the next tick): that part is
  // carried; what is still unexplained of it once the thread has run since
  // (its wait was counted then) was a block between two readings.
  int64_t unexplained = h.carry_ns + wall - cpu - delay;
  // The whole process was stopped meanwhile (job control): as much of what
  // the counters do not explain was `stop`, where the thread was then.
  int64_t stopped = 0;
  const auto stopped_since = static_cast<int64_t>(reading.stopped_total_ns - h.stopped_seen_ns);
  if (reading.stopped_total_ns > h.stopped_seen_ns && unexplained > 0) {
    stopped = unexplained < stopped_since ? unexplained : stopped_since;
    unexplained -= stopped;
  }
  if (reading.stopped_total_ns > h.stopped_seen_ns) h.stopped_seen_ns = reading.stopped_total_ns;
  StateInterval interval{};
  interval.time_ns = now_ns;
  interval.thread_id = slot.tid;
  interval.wait_ns = static_cast<uint64_t>(delay);
  interval.cpu_ns = static_cast<uint64_t>(cpu);
  // Blocked time belongs to the block seen now, or, when the thread is no
  // longer blocked, to the one seen at the last reading (it woke in this
  // interval), at that reading: each stack counts when it was seen, where
  // what rewrites stacks by time (OpenMP's stitches) finds it in the same
  // state of the program.
  const bool blocked_now = seen.blocked != Blocked::kNone;
  interval.blocked = blocked_now ? seen.blocked : h.blocked;
  interval.blocked_stack = blocked_now ? seen.stack : h.blocked_stack;
  int64_t blocked = 0;
  if (interval.blocked != Blocked::kNone) {
    blocked = unexplained;
  } else if (ran && h.carry_ns > 0) {
    blocked = h.carry_ns < unexplained ? h.carry_ns : unexplained;
    interval.blocked = Blocked::kSleep;
    interval.blocked_stack = kNoStack;
  }
  if (blocked > 0) {
    interval.blocked_ns = static_cast<uint64_t>(blocked);
    unexplained -= blocked;
    if (!blocked_now && h.blocked != Blocked::kNone) interval.blocked_stack_ns = h.last_ns;
  } else {
    interval.blocked = Blocked::kNone;
  }
  if (final) {  // the last interval: what is left was on a CPU (or counted twice)
    interval.cpu_ns = unexplained > -cpu ? static_cast<uint64_t>(cpu + unexplained) : 0;
    unexplained = 0;
  }
  h.carry_ns = unexplained;
  // A thread that has not run has captured no stack since.
  const lumen_latest_stacks latest_seen =
      !(ran || final) || gone ? h.latest : latest_words.read ? latest_words.stacks : latest_stacks(slot);
  const uint64_t latest = latest_seen.stack;
  // Waiting for a CPU: a thread woken from a block resumes where it
  // blocked (seen at the last reading); one preempted where it last ran,
  // which its latest sample of its running code tells (a CPU-time sample:
  // the stacks an OpenMP runtime's callbacks capture are where it was, not
  // where it ran), else its latest captured stack.
  const bool resumes_at_block = h.blocked != Blocked::kNone && h.blocked_stack != kNoStack;
  const bool sampled = latest_seen.sample_stack != kNoStack && latest_seen.sample_ns != 0;
  if (stopped > 0) {
    StateInterval stop{};
    stop.time_ns = now_ns;
    stop.thread_id = slot.tid;
    stop.blocked = Blocked::kStopped;
    stop.blocked_ns = static_cast<uint64_t>(stopped);
    const bool was_blocked = h.blocked != Blocked::kNone;
    stop.blocked_stack = was_blocked ? h.blocked_stack : sampled ? latest_seen.sample_stack : latest;
    stop.blocked_stack_ns = was_blocked ? h.last_ns : sampled ? latest_seen.sample_ns : 0;
    stop.wait_stack = stop.cpu_stack = kNoStack;
    emit(runtime, stream, h, stop, false);
  }
  if (resumes_at_block) {
    interval.wait_stack = h.blocked_stack;
    interval.wait_stack_ns = h.last_ns;
  } else if (sampled) {
    // Preempted in this interval, somewhere: at its middle, where the
    // thread ran its own code then, which the sample nearest that time
    // tells, the thread's latest or its next (held until then).
    const uint64_t middle = h.last_ns + static_cast<uint64_t>(wall) / 2;
    hold_wait(runtime, stream, h, HeldWait{interval.wait_ns, middle, now_ns});
    interval.wait_ns = 0;
    interval.wait_stack = latest_seen.sample_stack;  // what was unplaced before the first stack
    interval.wait_stack_ns = middle;
    if (latest_seen.sample_ns != h.latest.sample_ns) release_held_waits(runtime, stream, h, latest_seen);
  } else {
    interval.wait_stack = latest;
  }
  if (final) release_held_waits(runtime, stream, h, latest_seen);
  interval.cpu_stack = latest;
  // Before the thread's first captured stack, where it waited and ran is
  // not known yet: that time waits for the first stack (or the last interval).
  if (latest == kNoStack && !final) {
    if (!resumes_at_block) h.unplaced_wait_ns += interval.wait_ns, interval.wait_ns = 0;
    h.unplaced_cpu_ns += interval.cpu_ns, interval.cpu_ns = 0;
  } else {
    interval.wait_ns += h.unplaced_wait_ns, h.unplaced_wait_ns = 0;
    interval.cpu_ns += h.unplaced_cpu_ns, h.unplaced_cpu_ns = 0;
  }
  emit(runtime, stream, h, interval, final);
  if (final && h.first_known) {
    ThreadFigures figures{};
    figures.time_ns = now_ns;
    figures.begin_ns = h.first_ns;
    figures.cpu_ns = now.cpu_ns - h.first_counters.cpu_ns;
    figures.delay_ns = now.delay_ns - h.first_counters.delay_ns;
    figures.thread_id = slot.tid;
    runtime.recording->write_record(stream, kThreadRecord, &figures, sizeof figures);
  }

  h.last_ns = now_ns;
  h.counters = now;
  h.blocked = seen.blocked;
  h.blocked_stack = seen.stack;
  h.known = seen.known;
  h.clock_ns = clock;
  h.latest = latest_seen;
  h.sampled = true;
  return gone ? Reading::kGone : Reading::kRead;
}

}  // namespace lumen::states
