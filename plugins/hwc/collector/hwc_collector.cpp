// Hardware counter overflow profiling: per thread, one perf_event counter
// per -h counter, each overflowing every INTERVAL events and signalling the
// thread that overflowed (F_SETOWN_EX/F_OWNER_TID, O_ASYNC, a realtime
// signal through F_SETSIG, so the signal names the counter's fd). Each
// overflow records the interrupted stack and the counter's increment since
// the thread's previous record of it, read from the counter itself; the
// counts after the last overflow are recorded when the thread ends (or when
// collection stops) without a stack: collector_final_counters.
//
// A counter whose PMU cannot sample (msr, power, uncore_*: events no
// instruction of the program causes) is counted per thread and polled by a
// CPU-time timer of the thread (a per-task count only grows while the thread
// runs); each full interval it crossed is one record without a stack,
// flagged kNotProgramRelated (collector_not_program_related), and what is
// left after the last full interval goes with the final counts. Where the
// kernel counts such an event only per CPU, it is counted once per process
// on each CPU and polled by a CLOCK_MONOTONIC timer of the process; its
// records carry the polling thread's id, which means nothing.
//
// A counter the kernel counts in its scheduler (context-switches,
// cpu-migrations) overflows as the thread leaves the CPU: its overflows come
// as perf's SIGTRAP when the thread runs again, never waking it
// (trap_overflow.h).
#include <fcntl.h>
#include <lumen/collector_plugin.h>
#include <lumen/collector_support.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "../hwc_record.h"
#include "counter_encoding.h"
#include "counter_listing.h"
#include "cpu_wide_counters.h"
#include "host_hooks.h"
#include "trap_overflow.h"

namespace lumen::hwc {
namespace {

const lumen_runtime* g_runtime = nullptr;
lumen_stream g_stream = -1;
int g_signal = 0;
uint32_t g_counter_count = 0;
perf_event_attr g_attrs[kMaxCounters];
uint64_t g_intervals[kMaxCounters];
bool g_polled[kMaxCounters];  // not program related: counted and polled, never sampled
bool g_any_polled = false;     // per thread
bool g_cpu_wide[kMaxCounters];  // polled, and counted per CPU rather than per thread
bool g_any_cpu_wide = false;
bool g_trapped[kMaxCounters];   // overflows signalled by SIGTRAP (counted in the kernel)

// The poll timers' signal values, telling their expiries from overflows.
constexpr int kPollCookie = 0x4c4e5052;
constexpr int kCpuWidePollCookie = 0x4c4e5043;
// Thread CPU time between polls: a per-task count grows only while its
// thread runs, so a thread that waits needs no poll.
constexpr long kPollNs = 10'000'000;
// A poll that crossed more intervals than this (a tiny interval) puts the
// rest in its last record, which then counts several whole intervals.
constexpr uint64_t kMaxRecordsPerPoll = 256;
std::atomic<bool> g_running{false};
// Overflows closer together on one thread than this are a storm (a tiny
// interval of a busy counter): not unwound nor read, so the thread keeps
// running its own code and the kernel's signal queue never fills. Their
// counts are read with the next recorded overflow and go with the stack of
// the one before (where the thread was microseconds before): two context
// switches a few microseconds apart are not both counted in the function
// the second came in.
constexpr uint64_t kMinOverflowGapNs = 20'000;
std::atomic<uint64_t> g_throttled{0};

// One thread's counters, in a table of raw mmap memory that a handler and
// the thread that stops collection may both reach. A slot is claimed by its
// thread (kFree -> kClaimed -> kLive) and closed once (kLive -> kClosing ->
// kFree), by its thread at its end or by stop() for threads still running.
enum SlotState : int { kFree = 0, kClaimed = 1, kLive = 2, kClosing = 3 };
struct ThreadCounters {
  std::atomic<int> state;
  std::atomic<bool> in_handler;  // with state, Dekker-style: a closer waits for a running handler
  uint32_t tid;
  int fds[kMaxCounters];
  uint64_t last[kMaxCounters];   // the count at the previous record of each counter
  timer_t poll_timer;            // with g_any_polled
  bool poll_armed;
  uint64_t handled_ns;           // when the thread's last recorded overflow was handled
  uint64_t recorded_stack;       // its stack
  bool throttled[kMaxCounters];  // overflows of each counter went unrecorded since
};
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<bool>::is_always_lock_free,
              "touched in the signal handler");
constexpr size_t kMaxThreads = 4096;
ThreadCounters* g_slots = nullptr;

__attribute__((tls_model("initial-exec"))) thread_local ThreadCounters* t_slot = nullptr;

// fds this plugin opened (and may have closed since): a late signal of a
// closed counter is still ours, never the target's.
constexpr int kTrackedFds = 65536;
std::atomic<uint64_t> g_our_fds[kTrackedFds / 64];

void mark_fd(int fd) {
  if (fd >= 0 && fd < kTrackedFds) g_our_fds[fd / 64].fetch_or(1ull << (fd % 64), std::memory_order_relaxed);
}
bool fd_was_ours(int fd) {
  return fd >= 0 && fd < kTrackedFds && (g_our_fds[fd / 64].load(std::memory_order_relaxed) >> (fd % 64) & 1u);
}

// [signal-safe]
void write_overflow(uint64_t stack_id, uint64_t count, uint32_t tid, uint32_t counter, uint16_t flags) {
  CounterOverflow record{};
  record.time_ns = g_runtime->time->now_ns();
  record.stack_id = stack_id;
  record.count = count;
  record.thread_id = tid;
  record.counter = static_cast<uint16_t>(counter);
  record.flags = flags;
  g_runtime->recording->write_record(g_stream, kOverflowRecord, &record, sizeof record);
}

// [signal-safe] One kNotProgramRelated record per full interval counter
// `i` crossed since its previous record (at *last); the rest stays for later.
void record_full_intervals(uint64_t* last, uint32_t tid, uint32_t i, uint64_t value) {
  if (value <= *last) return;
  const uint64_t whole = (value - *last) / g_intervals[i];
  if (whole == 0) return;
  const uint64_t records = whole < kMaxRecordsPerPoll ? whole : kMaxRecordsPerPoll;
  for (uint64_t r = 1; r <= records; ++r)
    write_overflow(LUMEN_NO_STACK, g_intervals[i] * (r < records ? 1 : whole - records + 1), tid, i,
                   kNotProgramRelated);
  *last += whole * g_intervals[i];
}

// Counters counted per CPU: the count at their previous record, and a flag
// a poll takes without waiting (a busy poll is skipped; the next one finds
// the counts it would have recorded).
uint64_t g_cpu_wide_last[kMaxCounters];
std::atomic<bool> g_cpu_wide_busy{false};
timer_t g_cpu_wide_timer;
bool g_cpu_wide_timer_armed = false;

// [signal-safe] The process's CPU-wide poll timer expired, on any thread.
void on_cpu_wide_poll() {
  if (g_cpu_wide_busy.exchange(true, std::memory_order_acquire)) return;
  if (g_running.load(std::memory_order_acquire))
    for (uint32_t i = 0; i < g_counter_count; ++i) {
      uint64_t value = 0;
      if (g_cpu_wide[i] && read_cpu_wide(i, &value))
        record_full_intervals(&g_cpu_wide_last[i], g_runtime->threads->thread_id(), i, value);
    }
  g_cpu_wide_busy.store(false, std::memory_order_release);
}

// At stop: the last full intervals, the rest as final counts, and closed.
void close_cpu_wide_counters() {
  if (g_cpu_wide_timer_armed) timer_delete(g_cpu_wide_timer);
  g_cpu_wide_timer_armed = false;
  while (g_cpu_wide_busy.exchange(true, std::memory_order_acquire)) sched_yield();
  const uint32_t tid = g_runtime->threads->thread_id();
  for (uint32_t i = 0; i < g_counter_count; ++i) {
    uint64_t value = 0;
    if (!g_cpu_wide[i]) continue;
    if (read_cpu_wide(i, &value)) {
      record_full_intervals(&g_cpu_wide_last[i], tid, i, value);
      if (value > g_cpu_wide_last[i])
        write_overflow(LUMEN_NO_STACK, value - g_cpu_wide_last[i], tid, i, kFinalCounts);
    }
    close_cpu_wide(i);
  }
  // Left taken: a late expiry finds the counters gone.
}

// [signal-safe] The poll timer of the calling thread expired.
void on_poll(ThreadCounters* slot) {
  slot->in_handler.store(true, std::memory_order_seq_cst);
  if (slot->state.load(std::memory_order_seq_cst) == kLive && g_running.load(std::memory_order_acquire)) {
    for (uint32_t i = 0; i < g_counter_count; ++i) {
      uint64_t value = 0;
      if (g_polled[i] && slot->fds[i] >= 0 &&
          read(slot->fds[i], &value, sizeof value) == static_cast<ssize_t>(sizeof value))
        record_full_intervals(&slot->last[i], slot->tid, i, value);
    }
  }
  slot->in_handler.store(false, std::memory_order_release);
}

// [signal-safe] Records counter `index`'s increment since its previous
// record with the stack of `ucontext`: an overflow of the calling thread.
void record_overflow(ThreadCounters* slot, int index, void* ucontext) {
  if (g_runtime->time->now_ns() - slot->handled_ns < kMinOverflowGapNs) {
    g_throttled.fetch_add(1, std::memory_order_relaxed);
    slot->throttled[index] = true;
    return;
  }
  slot->in_handler.store(true, std::memory_order_seq_cst);
  if (slot->state.load(std::memory_order_seq_cst) == kLive && g_running.load(std::memory_order_acquire)) {
    uint64_t value = 0;
    if (read(slot->fds[index], &value, sizeof value) == static_cast<ssize_t>(sizeof value) &&
        value > slot->last[index]) {
      uint64_t increment = value - slot->last[index];
      slot->last[index] = value;
      const uint64_t stack = g_runtime->stacks->capture_stack(ucontext, 0);
      // This overflow's own interval here; what the storm before it counted
      // with the stack recorded before it.
      const uint64_t interval = g_intervals[index];
      if (slot->throttled[index] && slot->recorded_stack != LUMEN_NO_STACK && increment > interval) {
        write_overflow(slot->recorded_stack, increment - interval, slot->tid, static_cast<uint32_t>(index), 0);
        increment = interval;
      }
      write_overflow(stack, increment, slot->tid, static_cast<uint32_t>(index), 0);
      slot->recorded_stack = stack;
      slot->throttled[index] = false;
    }
    slot->handled_ns = g_runtime->time->now_ns();
  }
  slot->in_handler.store(false, std::memory_order_release);
}

// [signal-safe] SIGTRAP: ours when perf sent it for one of our counters
// (TRAP_PERF with our cookie); any other goes on to the program.
int on_trap(int, siginfo_t* info, void* ucontext) {
  if (info->si_code != TRAP_PERF) return 0;
  const uint64_t data = trap_perf_data(info);
  const uint64_t index = data & kTrapIndexMask;
  if ((data & ~kTrapIndexMask) != kTrapCookie || index >= g_counter_count || !g_trapped[index]) return 0;
  if (ThreadCounters* slot = t_slot; slot != nullptr && slot->fds[index] >= 0)
    record_overflow(slot, static_cast<int>(index), ucontext);
  return 1;
}

int on_overflow(int, siginfo_t* info, void* ucontext) {
  if (info->si_code == SI_TIMER && info->si_value.sival_int == kPollCookie) {
    // A late expiry after the thread's counters closed is still ours.
    if (ThreadCounters* slot = t_slot; slot != nullptr) on_poll(slot);
    return 1;
  }
  if (info->si_code == SI_TIMER && info->si_value.sival_int == kCpuWidePollCookie) {
    on_cpu_wide_poll();
    return 1;
  }
  if (info->si_code < POLL_IN || info->si_code > POLL_HUP) return 0;
  ThreadCounters* slot = t_slot;
  int index = -1;
  if (slot != nullptr)
    for (uint32_t i = 0; i < g_counter_count; ++i)
      if (slot->fds[i] == info->si_fd) index = static_cast<int>(i);
  if (index < 0) return fd_was_ours(info->si_fd) ? 1 : 0;
  record_overflow(slot, index, ucontext);
  return 1;
}

// Records what each counter accrued since its last overflow and closes it.
// Ordinary context; `slot` is the caller's own or a thread's still running.
void close_slot(ThreadCounters* slot) {
  int expected = kLive;
  if (!slot->state.compare_exchange_strong(expected, kClosing, std::memory_order_seq_cst)) return;
  while (slot->in_handler.load(std::memory_order_seq_cst)) sched_yield();
  if (slot->poll_armed) {
    timer_delete(slot->poll_timer);
    slot->poll_armed = false;
  }
  for (uint32_t i = 0; i < g_counter_count; ++i) {
    if (slot->fds[i] < 0) continue;
    ioctl(slot->fds[i], PERF_EVENT_IOC_DISABLE, 0);
    uint64_t value = 0;
    const bool read_ok = read(slot->fds[i], &value, sizeof value) == static_cast<ssize_t>(sizeof value);
    if (read_ok && g_polled[i]) record_full_intervals(&slot->last[i], slot->tid, i, value);
    if (read_ok && value > slot->last[i])
      write_overflow(LUMEN_NO_STACK, value - slot->last[i], slot->tid, i, kFinalCounts);
    close(slot->fds[i]);
    slot->fds[i] = -1;
  }
  slot->state.store(kFree, std::memory_order_release);
}

ThreadCounters* claim_slot() {
  for (size_t i = 0; i < kMaxThreads; ++i) {
    int expected = kFree;
    if (g_slots[i].state.compare_exchange_strong(expected, kClaimed, std::memory_order_acq_rel)) return &g_slots[i];
  }
  return nullptr;
}

// The calling thread's poll timer: every kPollNs of its CPU time, g_signal
// to this thread.
void arm_poll_timer(ThreadCounters* slot) {
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = g_signal;
  event.sigev_value.sival_int = kPollCookie;
  event._sigev_un._tid = static_cast<pid_t>(slot->tid);
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &slot->poll_timer) != 0) {
    g_runtime->recording->count_drop();
    return;
  }
  slot->poll_armed = true;
  itimerspec period{};
  period.it_interval.tv_nsec = kPollNs;
  period.it_value = period.it_interval;
  timer_settime(slot->poll_timer, 0, &period, nullptr);
}

void thread_begin() {
  if (!g_running.load(std::memory_order_acquire) || t_slot != nullptr) return;
  ThreadCounters* slot = claim_slot();
  if (slot == nullptr) {
    g_runtime->recording->count_drop();
    return;
  }
  slot->tid = g_runtime->threads->thread_id();
  slot->in_handler.store(false, std::memory_order_relaxed);
  slot->poll_armed = false;
  slot->handled_ns = 0;
  slot->recorded_stack = LUMEN_NO_STACK;
  for (uint32_t i = 0; i < kMaxCounters; ++i) {
    slot->fds[i] = -1;
    slot->last[i] = 0;
    slot->throttled[i] = false;
  }
  for (uint32_t i = 0; i < g_counter_count; ++i) {
    if (g_cpu_wide[i]) continue;
    const int fd = open_counter(g_attrs[i], -1);
    if (fd < 0) {
      g_runtime->recording->count_drop();
      continue;
    }
    if (g_polled[i] || g_trapped[i]) {
      slot->fds[i] = fd;
      continue;
    }
    mark_fd(fd);
    f_owner_ex owner{F_OWNER_TID, static_cast<pid_t>(slot->tid)};
    if (fcntl(fd, F_SETSIG, g_signal) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0 ||
        fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
      close(fd);
      g_runtime->recording->count_drop();
      continue;
    }
    slot->fds[i] = fd;
  }
  if (g_any_polled) arm_poll_timer(slot);
  t_slot = slot;
  slot->state.store(kLive, std::memory_order_seq_cst);
  for (uint32_t i = 0; i < g_counter_count; ++i)
    if (slot->fds[i] >= 0) ioctl(slot->fds[i], PERF_EVENT_IOC_ENABLE, 0);
}

void thread_end() {
  ThreadCounters* slot = t_slot;
  if (slot == nullptr) return;
  close_slot(slot);
  t_slot = nullptr;
}

// Opens a per-CPU counter (when it cannot be, it counts nothing: a drop) and
// says in the experiment's log how a counter that cannot sample is counted.
void prepare_polling(const EncodedCounter& counter, uint32_t index, const lumen_runtime* runtime) {
  std::string how = "counted per thread, polled every " + std::to_string(kPollNs / 1'000'000) +
                    " ms of the thread's CPU time";
  if (g_cpu_wide[index]) {
    std::string cpus;
    for (const int cpu : counter.cpus) cpus += (cpus.empty() ? "" : ",") + std::to_string(cpu);
    how = "counted per CPU on CPUs " + cpus + " (the whole machine's events, not this process's), polled every " +
          std::to_string(kPollNs / 1'000'000) + " ms";
    if (const std::string problem = open_cpu_wide(index, counter.attr, counter.cpus); !problem.empty()) {
      how += ", but it cannot be opened (" + problem + "): it counts nothing";
      g_cpu_wide[index] = false;
      runtime->recording->count_drop();
    }
  }
  const std::string note = "hwc: " + counter.name + " (" + counter.event + ") cannot sample: " + how +
                           "; one record per " + std::to_string(counter.interval) +
                           " events under collector_not_program_related";
  runtime->recording->log_note(note.c_str());
}

// A CLOCK_MONOTONIC timer of the process, polling the per-CPU counters.
bool arm_cpu_wide_timer() {
  sigevent event{};
  event.sigev_notify = SIGEV_SIGNAL;
  event.sigev_signo = g_signal;
  event.sigev_value.sival_int = kCpuWidePollCookie;
  if (timer_create(CLOCK_MONOTONIC, &event, &g_cpu_wide_timer) != 0) return false;
  g_cpu_wide_timer_armed = true;
  itimerspec period{};
  period.it_interval.tv_nsec = kPollNs;
  period.it_value = period.it_interval;
  return timer_settime(g_cpu_wide_timer, 0, &period, nullptr) == 0;
}

int start(const lumen_runtime* runtime, const lumen_option_value* options, size_t count, char* error,
          size_t error_size) {
  g_runtime = runtime;
  std::vector<EncodedCounter> counters;
  if (const std::string problem = resolve_counters(options, count, &counters); !problem.empty()) {
    std::snprintf(error, error_size, "%s", problem.c_str());
    return 1;
  }
  g_counter_count = static_cast<uint32_t>(counters.size());
  CounterSettings settings{};
  settings.counter_count = g_counter_count;
  for (uint32_t i = 0; i < g_counter_count; ++i) {
    g_attrs[i] = counters[i].attr;
    g_intervals[i] = counters[i].interval;
    g_cpu_wide[i] = counters[i].not_program_related && !counters[i].cpus.empty();
    g_polled[i] = counters[i].not_program_related && !g_cpu_wide[i];
    g_any_polled = g_any_polled || g_polled[i];
    g_trapped[i] = counters[i].counted_in_kernel;
    g_attrs[i].sig_data = kTrapCookie | i;
    g_any_cpu_wide = g_any_cpu_wide || g_cpu_wide[i];
    settings.intervals[i] = counters[i].interval;
  }
  void* table = mmap(nullptr, sizeof(ThreadCounters) * kMaxThreads, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (table == MAP_FAILED) {
    std::snprintf(error, error_size, "cannot map the thread table: %s", std::strerror(errno));
    return 1;
  }
  g_slots = static_cast<ThreadCounters*>(table);
  g_stream = runtime->recording->open_stream(kDataFile);
  if (g_stream < 0) {
    std::snprintf(error, error_size, "cannot create the data file '%s'", kDataFile);
    return 1;
  }
  // A realtime signal queues (a standard one would merge overflows); glibc
  // keeps the first few for itself.
  for (int candidate = SIGRTMIN + 6; candidate <= SIGRTMAX && g_signal == 0; ++candidate)
    if (runtime->signals->claim_signal(candidate, on_overflow) == 0) g_signal = candidate;
  if (g_signal == 0) {
    std::snprintf(error, error_size, "no realtime signal could be claimed for counter overflows");
    return 1;
  }
  if (std::find(g_trapped, g_trapped + g_counter_count, true) != g_trapped + g_counter_count &&
      runtime->signals->claim_signal(SIGTRAP, on_trap) != 0) {
    std::snprintf(error, error_size, "SIGTRAP could not be claimed for the overflows of the counters the kernel counts");
    return 1;
  }
  for (uint32_t i = 0; i < g_counter_count; ++i)
    if (counters[i].not_program_related) prepare_polling(counters[i], i, runtime);
  if (g_any_cpu_wide && !arm_cpu_wide_timer()) {
    std::snprintf(error, error_size, "cannot create the timer polling the per-CPU counters: %s", std::strerror(errno));
    for (uint32_t i = 0; i < g_counter_count; ++i)
      if (g_cpu_wide[i]) close_cpu_wide(i);
    return 1;
  }
  lumen::write_kept_record(runtime, g_stream, kSettingsRecord, &settings, sizeof settings);
  g_running.store(true, std::memory_order_release);
  return 0;
}

// In a forked child every slot is a copy of the parent's: its fds are
// copies counting the parent's threads, its poll timer was not inherited.
// So are the per-CPU counters (their timer was not inherited either). All
// are closed without records (the parent records them); a collected child's
// thread gets counters of its own from thread_begin.
void fork_child() {
  if (!g_running.load(std::memory_order_acquire)) return;
  for (size_t i = 0; i < kMaxThreads; ++i) {
    ThreadCounters& slot = g_slots[i];
    if (slot.state.load(std::memory_order_relaxed) == kLive)
      for (uint32_t c = 0; c < g_counter_count; ++c)
        if (slot.fds[c] >= 0) close(slot.fds[c]);
    slot.poll_armed = false;
    slot.state.store(kFree, std::memory_order_relaxed);
  }
  t_slot = nullptr;
  for (uint32_t i = 0; i < g_counter_count; ++i)
    if (g_cpu_wide[i]) forget_cpu_wide(i);
  g_any_cpu_wide = false;
  g_cpu_wide_timer_armed = false;
}

void stop() {
  if (!g_running.exchange(false, std::memory_order_acq_rel)) return;
  if (const uint64_t throttled = g_throttled.load(std::memory_order_relaxed); throttled > 0) {
    const std::string note = "hwc: " + std::to_string(throttled) + " overflows came within " +
                             std::to_string(kMinOverflowGapNs / 1000) +
                             " us of the thread's previous one and were not unwound; their counts went with the "
                             "stack of the one recorded before them";
    g_runtime->recording->log_note(note.c_str());
  }
  if (g_any_cpu_wide) close_cpu_wide_counters();
  // Threads still running at the end: their counts since the last overflow.
  for (size_t i = 0; i < kMaxThreads; ++i)
    if (g_slots[i].state.load(std::memory_order_acquire) == kLive) close_slot(&g_slots[i]);
}

const lumen_option_def kOptions[] = {
    {"counters", LUMEN_OPTION_STRING, "cycles,on,insts,on", 0, 0, 0,
     "COUNTER[,INTERVAL][,COUNTER2[,INTERVAL2]]...: counters to profile on overflow; INTERVAL is on (the "
     "counter's default), hi (10 x as often), lo (10 x less often) or a count; collect -h lists the counters"},
};

const lumen_flag_alias kFlagAliases[] = {{"on", "cycles,on,insts,on"}, {"auto", "cycles,on,insts,on"}};

const lumen_collector_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_collector_descriptor),
    .name = "hwc",
    .version = "1.0",
    .data_file = kDataFile,
    .description = "Hardware counter overflow profiling: the call stack every INTERVAL events of each counter "
                   "(perf_event_open)",
    .options = kOptions,
    .option_count = std::size(kOptions),
    .flag = {"h", "counters", kFlagAliases, std::size(kFlagAliases),
             "-h COUNTER[,INTERVAL][,COUNTER2[,INTERVAL2]]...|on|off  hardware counter overflow profiling; "
             "-h alone lists this machine's counters"},
    .start = start,
    .thread_begin = thread_begin,
    .thread_end = thread_end,
    .stop = stop,
    .fork_child = fork_child,
    .host_hooks = &kHostHooks,
    .attach = LUMEN_WORKS_AFTER_ATTACH,
};

}  // namespace
}  // namespace lumen::hwc

LUMEN_EXPORT const lumen_collector_descriptor* lumen_collector_plugin() { return &lumen::hwc::kPlugin; }
