// Clock profiling: a POSIX CPU-time timer per thread, delivering SIGPROF to
// the thread whose CPU time it measures; each expiry records the interrupted
// call stack and the CPU time the sample stands for, split into user and
// system time by the thread's own rusage, which also says how much CPU
// time the sample stands for.
#include <lumen/collector_plugin.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "../clock_record.h"

namespace {

using lumen::clock::ClockSplitSample;

const lumen_runtime* g_runtime = nullptr;
lumen_stream g_stream = -1;
int64_t g_interval_ns = 10'000'000;
std::atomic<bool> g_running{false};
static_assert(std::atomic<bool>::is_always_lock_free, "read in the handler");

// Timer ids can be 0 (glibc >= 2.34 hands out the kernel's ids), so whether
// this thread has a timer is a separate flag.
struct ThreadTimer {
  timer_t id;
  bool armed;
};
__attribute__((tls_model("initial-exec"))) thread_local ThreadTimer t_timer;

// The thread's user and system time as the kernel accounted them at its
// previous sample, and the split of the last interval that had one.
struct ThreadTimes {
  uint64_t user_ns;
  uint64_t system_ns;
  uint64_t last_user_delta;
  uint64_t last_system_delta;
  bool sampled;  // the last sample's time, stack and CPU follow
  uint64_t last_time_ns;
  uint64_t last_stack;
  int32_t last_cpu;
};
__attribute__((tls_model("initial-exec"))) thread_local ThreadTimes t_times;

uint64_t timeval_ns(const timeval& t) {
  return static_cast<uint64_t>(t.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(t.tv_usec) * 1000u;
}

// [signal-safe] The calling thread's user and system time: getrusage by
// system call (RUSAGE_THREAD needs no privilege), errno kept.
bool read_thread_times(uint64_t* user_ns, uint64_t* system_ns) {
  const int saved_errno = errno;
  rusage usage;
  const bool ok = syscall(SYS_getrusage, RUSAGE_THREAD, &usage) == 0;
  errno = saved_errno;
  if (!ok) return false;
  *user_ns = timeval_ns(usage.ru_utime);
  *system_ns = timeval_ns(usage.ru_stime);
  return true;
}

// [signal-safe] The CPU time a sample stands for, split into user and
// system time: what the kernel accounted to this thread since its previous
// sample (its rusage; user + system there is the thread's precise run time,
// shared out by the tick-based user/system proportion). That is exact
// where the timer's own count is not: on an overcommitted machine a
// CPU-time timer delivers fewer signals than expirations and its overrun
// count misses some. `timer_ns` (interval x (1 + overruns)) is used, with
// the previous split, only when the accounting has not moved; with no
// split yet, the time counts as user time.
void split_cpu_time(uint64_t timer_ns, uint64_t* user_ns, uint64_t* system_ns) {
  uint64_t user_now = 0, system_now = 0;
  uint64_t user_delta = 0, system_delta = 0;
  if (read_thread_times(&user_now, &system_now)) {
    user_delta = user_now > t_times.user_ns ? user_now - t_times.user_ns : 0;
    system_delta = system_now > t_times.system_ns ? system_now - t_times.system_ns : 0;
    if (user_now > t_times.user_ns) t_times.user_ns = user_now;
    if (system_now > t_times.system_ns) t_times.system_ns = system_now;
  }
  if (user_delta + system_delta != 0) {
    t_times.last_user_delta = user_delta;
    t_times.last_system_delta = system_delta;
    *user_ns = user_delta;
    *system_ns = system_delta;
    return;
  }
  user_delta = t_times.last_user_delta;
  system_delta = t_times.last_system_delta;
  if (user_delta + system_delta == 0) user_delta = 1;
  const unsigned __int128 share = static_cast<unsigned __int128>(timer_ns) * system_delta;
  *system_ns = static_cast<uint64_t>(share / (user_delta + system_delta));
  *user_ns = timer_ns - *system_ns;
}

// Marks this plugin's timers, so that a SIGPROF from anything else (the
// target's own setitimer or timer) goes on to the target's handler.
constexpr int kTimerCookie = 0x6c756d65;  // "lume"

int on_profiling_signal(int, siginfo_t* info, void* ucontext) {
  if (info->si_code != SI_TIMER || info->si_value.sival_int != kTimerCookie) return 0;
  // Still pending when its thread's timer went (thread_end): taken, no sample.
  if (!t_timer.armed) return 1;
  if (g_running.load(std::memory_order_acquire)) {
    ClockSplitSample sample;
    sample.time_ns = g_runtime->time->now_ns();
    sample.stack_id = g_runtime->stacks->capture_stack(ucontext, 0);
    const uint64_t timer_ns = static_cast<uint64_t>(g_interval_ns) * (1u + static_cast<uint32_t>(info->si_overrun));
    split_cpu_time(timer_ns, &sample.user_ns, &sample.system_ns);
    sample.thread_id = g_runtime->threads->thread_id();
    sample.cpu = sched_getcpu();
    // The tail's sample-to-be: the last one written (none while paused).
    if (g_runtime->recording->write_record(g_stream, lumen::clock::kSplitSampleRecord, &sample, sizeof sample) != 0) {
      t_times.last_time_ns = sample.time_ns, t_times.last_stack = sample.stack_id, t_times.last_cpu = sample.cpu;
      t_times.sampled = true;
    }
  }
  return 1;
}

// The CPU time since the thread's last sample. On a loaded machine a
// CPU-time timer's expirations outrun its signals, and a thread can end
// tens of ms of CPU time past its last sample (99 ms of a 0.3 s thread,
// beside three busy loops on 2 CPUs), which its end would lose. It is
// written as one more sample with the last one's time, stack and CPU: what
// the thread did then is the best estimate of what it did since (its exit
// path is not). A thread never sampled keeps that time unrecorded: no stack
// of it is known.
void record_tail() {
  if (!t_times.sampled) return;
  uint64_t user_now = 0, system_now = 0;
  if (!read_thread_times(&user_now, &system_now)) return;
  ClockSplitSample tail;
  tail.user_ns = user_now > t_times.user_ns ? user_now - t_times.user_ns : 0;
  tail.system_ns = system_now > t_times.system_ns ? system_now - t_times.system_ns : 0;
  if (tail.user_ns + tail.system_ns == 0) return;
  t_times.user_ns = user_now, t_times.system_ns = system_now;
  tail.time_ns = t_times.last_time_ns;
  tail.stack_id = t_times.last_stack;
  tail.thread_id = g_runtime->threads->thread_id();
  tail.cpu = t_times.last_cpu;
  g_runtime->recording->write_record(g_stream, lumen::clock::kSplitSampleRecord, &tail, sizeof tail);
}

int start(const lumen_runtime* runtime, const lumen_option_value* options, size_t count, char* error,
          size_t error_size) {
  g_runtime = runtime;
  if (const char* interval = lumen_option(options, count, "interval", nullptr)) g_interval_ns = std::atoll(interval);
  g_stream = runtime->recording->open_stream(lumen::clock::kDataFile);
  if (g_stream < 0) {
    std::snprintf(error, error_size, "cannot create the data file '%s'", lumen::clock::kDataFile);
    return 1;
  }
  if (runtime->signals->claim_signal(SIGPROF, on_profiling_signal) != 0) {
    std::snprintf(error, error_size, "SIGPROF is already used by another plugin");
    return 1;
  }
  // The interval as people read it: "10 ms", "500 µs".
  char note[160];
  const bool whole_ms = g_interval_ns % 1'000'000 == 0;
  std::snprintf(note, sizeof note,
                "clock: each thread sampled every %lld %s of its CPU time, split into user and system time by its rusage",
                static_cast<long long>(whole_ms ? g_interval_ns / 1'000'000 : g_interval_ns / 1000), whole_ms ? "ms" : "µs");
  runtime->recording->log_note(note);
  g_running.store(true, std::memory_order_release);
  return 0;
}

void thread_begin() {
  t_times = ThreadTimes{};
  read_thread_times(&t_times.user_ns, &t_times.system_ns);
  sigevent event{};
  event.sigev_notify = SIGEV_THREAD_ID;
  event.sigev_signo = SIGPROF;
  event.sigev_value.sival_int = kTimerCookie;
  event._sigev_un._tid = static_cast<pid_t>(g_runtime->threads->thread_id());
  if (timer_create(CLOCK_THREAD_CPUTIME_ID, &event, &t_timer.id) != 0) {
    g_runtime->recording->count_drop();
    return;
  }
  t_timer.armed = true;
  itimerspec period{};
  period.it_interval.tv_sec = g_interval_ns / 1'000'000'000;
  period.it_interval.tv_nsec = g_interval_ns % 1'000'000'000;
  period.it_value = period.it_interval;
  timer_settime(t_timer.id, 0, &period, nullptr);
}

void thread_end() {
  if (!t_timer.armed) return;
  // SIGPROF blocked while the timer goes: a signal of it still pending is
  // delivered after, to an unarmed thread, and taken without a sample. By
  // system call: the collector's pthread_sigmask keeps SIGPROF unblocked.
  sigset_t prof, previous;
  sigemptyset(&prof);
  sigaddset(&prof, SIGPROF);
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, &prof, &previous, _NSIG / 8);
  t_timer.armed = false;
  timer_delete(t_timer.id);
  record_tail();
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &previous, nullptr, _NSIG / 8);
}

// A forked child has no timers (POSIX timers are not inherited): the
// forking thread's id names nothing there, or a timer the child creates
// later. When the child is collected, thread_begin arms a new one (and
// reads the child thread's own times, which start again from zero).
void fork_child() { t_timer.armed = false; }

void stop() { g_running.store(false, std::memory_order_release); }

const lumen_option_def kOptions[] = {
    {"interval", LUMEN_OPTION_DURATION, "10ms", 100'000, 10'000'000'000, 1'000'000,
     "CPU time between samples of a thread; a number alone is in milliseconds"},
};

const lumen_flag_alias kFlagAliases[] = {{"on", "10ms"}, {"hi", "1ms"}, {"lo", "100ms"}};

const lumen_collector_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_collector_descriptor),
    .name = "clock",
    .version = "1.1",
    .data_file = lumen::clock::kDataFile,
    .description = "Clock profiling: samples each thread's call stack on its CPU time",
    .options = kOptions,
    .option_count = std::size(kOptions),
    .flag = {"p", "interval", kFlagAliases, std::size(kFlagAliases),
             "-p on|off|hi|lo|<interval>  clock profiling (on = 10 ms, hi = 1 ms, lo = 100 ms; ms, or u for µs)"},
    .start = start,
    .thread_begin = thread_begin,
    .thread_end = thread_end,
    .stop = stop,
    .fork_child = fork_child,
};

}  // namespace

LUMEN_EXPORT const lumen_collector_descriptor* lumen_collector_plugin() {
  return &kPlugin;
}
