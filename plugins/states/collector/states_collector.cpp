// Off-CPU states: a collector thread reads, every interval, each thread of
// the process from /proc (schedstat, stat, syscall) and unwinds the stack of
// one that is blocked from its own memory, without a signal: a sleeping
// program is never woken. Each thread's wall time is split into time
// blocked (by what), time waiting for a CPU, and time on a CPU.
#include <sys/syscall.h>
#include <unistd.h>
#include <lumen/collector_plugin.h>
#include <fcntl.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "../states_record.h"
#include "process_cpu.h"
#include "process_stops.h"
#include "state_sampler.h"
#include "thread_slots.h"

namespace {

using namespace lumen::states;

const lumen_runtime* g_runtime = nullptr;
lumen_stream g_stream = -1;
std::atomic<bool> g_running{false};
ProcessStops g_stops;  // the sampling thread's
ProcessCpu g_cpu;      // the sampling thread's
__attribute__((tls_model("initial-exec"))) thread_local ThreadSlot* t_slot;

// Holds a live slot for reading; false when another holds it or it ended.
bool hold(ThreadSlot& slot, int as) {
  int expected = kLive;
  return slot.phase.compare_exchange_strong(expected, as, std::memory_order_acquire);
}

// A thread found idle (its clock unchanged) is next read at most 1, 2, 4...
// ticks later, at most kMaxIdleTicks and 50 ms: what is lost is only when,
// in that time, it woke (its blocked time goes to where it was blocked, its
// CPU time to its latest captured stack, as at every reading). It falls
// due at the next tick that is a multiple of that number, so idle threads
// fall due together and the process's clock is weighed at those ticks
// only, not at every one.
constexpr uint64_t kMaxIdleTicks = 8;
constexpr uint64_t kMaxIdleNs = 50'000'000;
uint64_t g_tick = 0;           // the sampling thread's
uint64_t g_max_idle_ticks = 1;

void pace(ThreadSlot& slot, bool idle) {
  slot.idle_readings = idle ? slot.idle_readings + 1 : 0;
  const uint64_t wait = slot.idle_readings == 0 ? 1 : uint64_t{1} << (slot.idle_readings < 4 ? slot.idle_readings - 1 : 3);
  const uint64_t ticks = wait < g_max_idle_ticks ? wait : g_max_idle_ticks;
  slot.next_tick.store((g_tick / ticks + 1) * ticks, std::memory_order_relaxed);
  slot.idle.store(idle, std::memory_order_relaxed);
}

// After a reading of the thread that found it idle, the process's
// unexplained CPU time its clock reading refers to (process_cpu.h): the
// total before this tick's process clock when its clock was read before
// that (`before`), else the total now.
void mark_quiet(ThreadSlot& slot, bool idle, bool before) {
  slot.quiet_marked = idle && (before ? g_cpu.reliable_before() : g_cpu.reliable());
  slot.quiet_mark = before ? g_cpu.total_before() : g_cpu.total();
}

// Reads the threads of `slots` (held by the caller) at `at_ns` (0: each
// when it is read): their clocks first, then the files of those that ran,
// all in one request of the runtime's reader, then each one's interval,
// whose outcome goes to `outcomes`. At a tick, the first batch carries the
// sampling thread's own schedstat too (process_stops.h). With `weighs`,
// the process's CPU-time clock is weighed against theirs and the
// collector's between their clocks and the request.
void read_threads(ThreadSlot* const* slots, size_t count, bool final, uint64_t at_ns, Reading* outcomes,
                  bool first_of_tick, bool weighs) {
  // Only the sampling thread (or stop, after it ended) reads here.
  static ThreadReading readings[kBatchThreads];
  static TaskFiles files[kBatchFiles];
  static uint32_t tids[kBatchFiles];
  bool reads = false;
  if (weighs) g_cpu.sequence_begins(*g_runtime);
  for (size_t i = 0; i < count; ++i) {
    ThreadSlot& slot = *slots[i];
    plan_reading(slot, final, readings[i], files[i]);
    tids[i] = slot.tid;
    reads = reads || files[i].wants_counters;
    if (final || readings[i].gone) continue;
    const uint64_t clock = readings[i].clock_ns;
    if (weighs) {
      const uint64_t previous = g_cpu.weighed_tick();
      g_cpu.thread_read(previous != 0 && slot.clock_weighed_tick == previous && clock >= slot.clock_weighed_ns,
                        clock - slot.clock_weighed_ns);
      slot.clock_weighed_ns = clock;
      slot.clock_weighed_tick = g_tick;
    }
    slot.clock_seen_ns = clock;
    slot.clock_seen_tick = g_tick;
  }
  if (weighs) g_cpu.weigh(*g_runtime, g_runtime->threads->thread_id());
  size_t asked = count;
  if (first_of_tick && g_stops.ask_own(reads, files[count], files[count + 1])) {
    tids[asked++] = g_runtime->threads->thread_id();
    tids[asked++] = LUMEN_TASK_READER;
  }
  const uint64_t asked_at = g_runtime->time->now_ns();
  read_task_files(*g_runtime, tids, files, asked);
  g_stops.add_reader_wait(g_runtime->time->now_ns() - asked_at);
  if (first_of_tick) g_stops.counted(files[count], files[count + 1]);
  for (size_t i = 0; i < count; ++i) {
    readings[i].stopped_total_ns = g_stops.stopped_total_ns();
    // Each interval ends where the request began: its counters were read
    // after that, so a stop of the whole process inside the request (seen
    // only at the next tick) falls in the thread's next interval, which
    // charges it as `stop`, not in this one as the block it was in.
    const uint64_t now = at_ns != 0 ? at_ns : asked_at;
    outcomes[i] = sample_thread(*g_runtime, g_stream, *slots[i], now, final, readings[i], files[i]);
    const bool idle = !readings[i].gone && !files[i].wants_counters;
    pace(*slots[i], idle);
    mark_quiet(*slots[i], idle, weighs);
  }
}

// An idle thread due for a reading that the process's clock says has not
// run since its last one: its interval is written as that reading would
// write it (blocked throughout where it was), without a system call.
bool passes_quiet(ThreadSlot& slot, uint64_t now_ns) {
  if (!slot.quiet_marked || !slot.history.known || !g_cpu.quiet_since(slot.quiet_mark) || g_cpu.is_collector(slot.tid))
    return false;
  ThreadReading reading;
  reading.clock_ns = slot.history.clock_ns;
  reading.stopped_total_ns = g_stops.stopped_total_ns();
  static const TaskFiles nothing{};  // no file wanted
  sample_thread(*g_runtime, g_stream, slot, now_ns, false, reading, nothing);
  pace(slot, true);
  return true;
}

// Idle threads' readings due, and how many of them the process's clock
// spared (for the log).
uint64_t g_due_idle_total = 0;
uint64_t g_spared_total = 0;

void end_tick(uint64_t due_idle, uint64_t spared) {
  g_due_idle_total += due_idle;
  g_spared_total += spared;
  g_stops.end_tick(g_runtime->time->now_ns());
}

void tick() {
  if (!g_running.load(std::memory_order_acquire)) return;
  // It reads the program's threads through /proc (read_task_files), never a
  // descriptor of the program's: off the program's table (a no-op once
  // this thread is; a forked child's thread asks anew).
  if (LUMEN_PROVIDES(g_runtime->work, own_descriptor_table)) g_runtime->work->own_descriptor_table();
  ++g_tick;
  g_stops.begin_tick(g_runtime->time->now_ns());
  g_cpu.begin_tick(*g_runtime, g_tick);
  const int count = slot_count();
  ThreadSlot* held[kBatchThreads] = {};
  Reading outcomes[kBatchThreads];
  uint64_t due_idle = 0, spared = 0;
  // Weighing the process's clock pays at a tick where more idle threads
  // are due than it reads clocks; at the others (most: idle threads fall
  // due together), the threads due are read as they are.
  uint64_t due_idle_now = 0;
  for (int i = 0; i < count; ++i) {
    const ThreadSlot& slot = slot_at(i);
    due_idle_now += slot.idle.load(std::memory_order_relaxed) && slot.next_tick.load(std::memory_order_relaxed) <= g_tick &&
                    slot.phase.load(std::memory_order_relaxed) == kLive;
  }
  if (!g_cpu.pays(due_idle_now)) {
    // Every thread due, in batches, as they come.
    bool first = true;
    for (int i = 0; i < count || first; first = false) {
      size_t n = 0;
      for (; i < count && n < kBatchThreads; ++i) {
        ThreadSlot& slot = slot_at(i);
        if (slot.next_tick.load(std::memory_order_relaxed) > g_tick || !hold(slot, kReading)) continue;
        due_idle += slot.idle_readings != 0;
        held[n++] = &slot;
      }
      read_threads(held, n, false, 0, outcomes, first, false);
      for (size_t k = 0; k < n; ++k) release_slot(*held[k], outcomes[k] == Reading::kGone ? kFree : kLive);
    }
    end_tick(due_idle, spared);
    return;
  }
  // First the threads that ran at their previous reading, new ones, and
  // those read at the previous tick: their clocks explain part of the
  // process's CPU time.
  size_t n = 0;
  bool more = false;
  for (int i = 0; i < count; ++i) {
    ThreadSlot& slot = slot_at(i);
    if (slot.next_tick.load(std::memory_order_relaxed) > g_tick || !hold(slot, kReading)) continue;
    const bool first = slot.idle_readings == 0 || slot.clock_seen_tick + 1 == g_tick;
    if (first && n < kBatchThreads) {
      held[n++] = &slot;
    } else {
      more = more || first;
      release_slot(slot, kLive);
    }
  }
  const bool weighs = !more;
  read_threads(held, n, false, 0, outcomes, true, weighs);
  for (size_t k = 0; k < n; ++k) release_slot(*held[k], outcomes[k] == Reading::kGone ? kFree : kLive);
  // Then the idle ones due, unless the process's clock says none of them ran.
  const uint64_t now = g_runtime->time->now_ns();
  for (int i = 0; i < count;) {
    n = 0;
    for (; i < count && n < kBatchThreads; ++i) {
      ThreadSlot& slot = slot_at(i);
      if (slot.next_tick.load(std::memory_order_relaxed) > g_tick || !hold(slot, kReading)) continue;
      due_idle += slot.idle_readings != 0;
      if (passes_quiet(slot, now)) {
        ++spared;
        release_slot(slot, kLive);
      } else {
        held[n++] = &slot;
      }
    }
    if (n == 0) break;
    read_threads(held, n, false, 0, outcomes, false, false);
    for (size_t k = 0; k < n; ++k) release_slot(*held[k], outcomes[k] == Reading::kGone ? kFree : kLive);
  }
  end_tick(due_idle, spared);
}

int start(const lumen_runtime* runtime, const lumen_option_value* options, size_t count, char* error,
          size_t error_size) {
  g_runtime = runtime;
  if (std::strcmp(lumen_option(options, count, "enable", "1"), "1") != 0) {
    runtime->recording->log_note("states are planned with enable=off: CPU time only");
    return 0;
  }
  const long long interval = std::atoll(lumen_option(options, count, "interval", "10000000"));
  g_stream = runtime->recording->open_stream(kDataFile);
  if (g_stream < 0) {
    std::snprintf(error, error_size, "cannot create the data file '%s'", kDataFile);
    return 1;
  }
  g_stops.start(static_cast<uint64_t>(interval));
  g_max_idle_ticks = interval > 0 ? kMaxIdleNs / static_cast<uint64_t>(interval) : 1;
  if (g_max_idle_ticks < 1) g_max_idle_ticks = 1;
  if (g_max_idle_ticks > kMaxIdleTicks) g_max_idle_ticks = kMaxIdleTicks;
  g_running.store(true, std::memory_order_release);
  if (runtime->work->run_periodic(static_cast<uint64_t>(interval), tick) != 0) {
    g_running.store(false, std::memory_order_release);
    std::snprintf(error, error_size, "cannot start the sampling thread");
    return 1;
  }
  return 0;
}

void thread_begin() {
  if (!g_running.load(std::memory_order_acquire)) return;
  t_slot = claim_slot(g_runtime->threads->thread_id(), g_runtime->time->now_ns(),
                      g_runtime->stacks->latest_stacks_of_thread());
  if (t_slot == nullptr) {
    g_runtime->recording->count_drop();
    return;
  }
  const bool attached = LUMEN_PROVIDES(g_runtime->guard, attached) && g_runtime->guard->attached() != 0;
  begin_thread_history(*g_runtime, *t_slot, g_runtime->threads->thread_created_ns(), attached);
  t_slot->history.stopped_seen_ns = g_stops.stopped_total_ns();  // stops before it began are not its
  publish_slot(*t_slot);
  // An empty interval from the thread itself: analysis lists a thread by the
  // data blocks it wrote, and the sampler writes the others for it.
  StateInterval begins{};
  begins.time_ns = g_runtime->time->now_ns();
  begins.thread_id = t_slot->tid;
  begins.blocked_stack = begins.wait_stack = begins.cpu_stack = LUMEN_NO_STACK;
  g_runtime->recording->write_record(g_stream, kIntervalRecord, &begins, sizeof begins);
}

// Threads that ended, and those of them that knew their counters without a
// reading (for the log).
std::atomic<uint64_t> g_ended{0};
std::atomic<uint64_t> g_ended_unread{0};

// The ending thread writes its own last interval, after any read of it by
// the sampler has finished (its stack stays mapped until then).
void thread_end() {
  ThreadSlot* slot = t_slot;
  if (slot == nullptr) return;
  t_slot = nullptr;
  for (;;) {
    int phase = slot->phase.load(std::memory_order_acquire);
    if (phase == kLive && hold(*slot, kEnding)) break;
    if (phase == kReading || phase == kReadingAwaited) phase = await_slot(*slot, kReading);
    if (phase != kLive) return;  // collection ended (written already), or the sampler let it go
  }
  ThreadReading reading;
  TaskFiles files;
  plan_reading(*slot, true, reading, files);
  reading.stopped_total_ns = g_stops.stopped_total_ns();
  // Most threads end knowing their counters: no round trip to the
  // runtime's reading thread (a wake-up of a sleeping thread each).
  uint64_t now = g_runtime->time->now_ns();
  g_ended.fetch_add(1, std::memory_order_relaxed);
  if (counters_of_self(*slot, reading)) {
    g_ended_unread.fetch_add(1, std::memory_order_relaxed);
  } else {
    read_task_files(*g_runtime, &slot->tid, &files, 1);
    now = g_runtime->time->now_ns();
  }
  sample_thread(*g_runtime, g_stream, *slot, now, true, reading, files);
  release_slot(*slot, kFree);
}

// The runtime stopped the sampling thread: every thread still here gets its
// last interval, up to now.
void stop() {
  if (!g_running.exchange(false, std::memory_order_acq_rel)) return;
  const uint64_t now = g_runtime->time->now_ns();
  const int count = slot_count();
  ThreadSlot* held[kBatchThreads];
  Reading outcomes[kBatchThreads];
  for (int i = 0; i < count;) {
    size_t n = 0;
    for (; i < count && n < kBatchThreads; ++i) {
      ThreadSlot& slot = slot_at(i);
      await_slot(slot, kEnding);
      if (hold(slot, kReading)) held[n++] = &slot;
    }
    read_threads(held, n, true, now, outcomes, false, false);
    for (size_t k = 0; k < n; ++k) release_slot(*held[k], kClosed);
  }
  char note[160];
  std::snprintf(note, sizeof note, "idle threads' readings spared by the process's CPU-time clock: %llu of %llu",
                static_cast<unsigned long long>(g_spared_total), static_cast<unsigned long long>(g_due_idle_total));
  g_runtime->recording->log_note(note);
  std::snprintf(note, sizeof note, "threads that ended knowing their counters without reading them: %llu of %llu",
                static_cast<unsigned long long>(g_ended_unread.load(std::memory_order_relaxed)),
                static_cast<unsigned long long>(g_ended.load(std::memory_order_relaxed)));
  g_runtime->recording->log_note(note);
}

// The parent's threads and sampling thread are not the child's.
void fork_child() {
  t_slot = nullptr;
  forget_self_pid();
  forget_all_slots();
  g_stops.forget();
  g_cpu.forget();
  g_due_idle_total = g_spared_total = 0;
  g_ended.store(0, std::memory_order_relaxed);
  g_ended_unread.store(0, std::memory_order_relaxed);
}

const lumen_option_def kOptions[] = {
    {"interval", LUMEN_OPTION_DURATION, "10ms", 100'000, 10'000'000'000, 1'000'000,
     "wall time between two readings of every thread; planned with clock profiling, it takes its interval"},
    {"enable", LUMEN_OPTION_BOOLEAN, "on", 0, 0, 0,
     "off: record nothing (in a profile, clock profiling of CPU time only)"},
};

const lumen_flag_alias kFlagAliases[] = {{"on", "10ms"}, {"hi", "1ms"}, {"lo", "100ms"}};

const lumen_collector_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_collector_descriptor),
    .name = "states",
    .version = "1.0",
    .data_file = kDataFile,
    .description = "Off-CPU states: where each thread waits for a CPU, a lock, a sleep or I/O, a page fault, "
                   "with its stack, read from /proc without signalling it",
    .options = kOptions,
    .option_count = std::size(kOptions),
    .flag = {"states", "interval", kFlagAliases, std::size(kFlagAliases),
             "-states on|off|<interval>  off-CPU states (on with -p by default; off: CPU time only)"},
    .start = start,
    .thread_begin = thread_begin,
    .thread_end = thread_end,
    .stop = stop,
    .fork_child = fork_child,
    .host_hooks = nullptr,
    .attach = LUMEN_WORKS_AFTER_ATTACH,
};

}  // namespace

LUMEN_EXPORT const lumen_collector_descriptor* lumen_collector_plugin() {
  return &kPlugin;
}
