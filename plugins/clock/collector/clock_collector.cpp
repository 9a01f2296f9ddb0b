// Clock profiling: a POSIX CPU-time timer per thread, delivering SIGPROF to
// the thread whose CPU time it measures; each expiry records the interrupted
// call stack and the CPU time the sample stands for, split into user and
// system time by the thread's own rusage, which also says how much CPU
// time the sample stands for. With the kernel's frames (kernel_frames, where
// perf_event allows the kernel's call chains) a task-clock counter of the
// thread samples the kernel's call chains in between (kernel_sampler.h),
// and each timer sample puts the system time of its window on the kernel
// functions under the call that entered the kernel.
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
#include <cstring>
#include <iterator>

#include "../clock_record.h"
#include "kernel_sampler.h"

namespace {

using lumen::clock::ClockSplitSample;
using lumen::clock::KernelSample;
using lumen::clock::KernelSampler;

const lumen_runtime* g_runtime = nullptr;
lumen_stream g_stream = -1;
int64_t g_interval_ns = 10'000'000;
std::atomic<bool> g_running{false};
bool g_kernel_frames = false;  // threads sampled by a task-clock counter with the kernel's frames
std::atomic<uint64_t> g_lost_chains{0};  // samples taken in the kernel that a full ring dropped
// Where the threads' counters are opened: the runtime's thread with a
// descriptor table of its own (SDK 1.4), so no number of the program's is
// taken even for a moment.
long (*g_run_elsewhere)(long (*)(void*), void*) = nullptr;
static_assert(std::atomic<bool>::is_always_lock_free, "read in the handler");

// Timer ids can be 0 (glibc >= 2.34 hands out the kernel's ids), so whether
// this thread has a timer is a separate flag.
struct ThreadTimer {
  timer_t id;
  bool armed;
};
__attribute__((tls_model("initial-exec"))) thread_local ThreadTimer t_timer;
__attribute__((tls_model("initial-exec"))) thread_local KernelSampler t_kernel;

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

// [signal-safe] Writes one sample of the calling thread; keeps it as the
// tail's sample-to-be (none while paused).
void write_sample(uint64_t time_ns, uint64_t stack_id, uint64_t user_ns, uint64_t system_ns, int32_t cpu) {
  ClockSplitSample sample{time_ns, stack_id, user_ns, system_ns, g_runtime->threads->thread_id(), cpu};
  if (g_runtime->recording->write_record(g_stream, lumen::clock::kSplitSampleRecord, &sample, sizeof sample) != 0) {
    t_times.last_time_ns = sample.time_ns, t_times.last_stack = sample.stack_id, t_times.last_cpu = sample.cpu;
    t_times.sampled = true;
  }
}

// The counter's samples a timer sample found in the thread's ring,
// consecutive ones of one kernel chain taken together.
struct KernelRun {
  void* ucontext;
  uint64_t time_ns;
  int32_t cpu;
  uint64_t system_ns;     // to share out among the samples taken in the kernel
  uint32_t in_kernel;     // how many there are
  uint32_t shared;        // how many have had their share
  uint32_t user_samples;  // taken in user mode
  KernelSample chain;     // the chain of the samples not yet written
  uint32_t chain_samples;
};

// [signal-safe] Writes the samples of `run.chain` with their share of the
// system time, on their kernel frames above the interrupted user stack.
void write_chain(KernelRun& run) {
  if (run.chain_samples == 0) return;
  run.shared += run.chain_samples;
  const uint64_t share = run.shared == run.in_kernel
                             ? run.system_ns - run.system_ns / run.in_kernel * (run.in_kernel - run.chain_samples)
                             : run.system_ns / run.in_kernel * run.chain_samples;
  const uint64_t stack =
      g_runtime->stacks->capture_stack_under(run.ucontext, run.chain.frames, run.chain.frame_count);
  write_sample(run.time_ns, stack, 0, share, run.cpu);
  run.chain_samples = 0;
}

bool same_chain(const KernelSample& a, const KernelSample& b) {
  if (a.frame_count != b.frame_count) return false;
  for (uint32_t i = 0; i < a.frame_count; ++i)
    if (a.frames[i] != b.frames[i]) return false;
  return true;
}

void count_kernel_sample(const KernelSample& sample, void* context) {
  auto& run = *static_cast<KernelRun*>(context);
  if (sample.in_kernel && sample.frame_count > 0) ++run.in_kernel;
  else ++run.user_samples;
}

void write_kernel_sample(const KernelSample& sample, void* context) {
  auto& run = *static_cast<KernelRun*>(context);
  if (!sample.in_kernel || sample.frame_count == 0) return;
  if (run.chain_samples > 0 && !same_chain(run.chain, sample)) write_chain(run);
  if (run.chain_samples == 0) run.chain = sample;
  ++run.chain_samples;
}

// [signal-safe] A sample of a thread with a task-clock counter: the
// counter's samples queued since the previous one. The CPU time since then
// (the thread's rusage) is shared out: its system time among the samples
// taken in the kernel, each on its kernel chain above the interrupted user
// stack; its user time (and the system time when no sample was taken in
// the kernel: short system calls all through a user loop) on that user
// stack alone.
void record_kernel_samples(void* ucontext, uint64_t timer_ns) {
  const uint64_t end = lumen::clock::kernel_samples_end(t_kernel);
  if (g_running.load(std::memory_order_acquire)) {
    KernelRun run{};
    run.ucontext = ucontext;
    lumen::clock::visit_kernel_samples(t_kernel, end, count_kernel_sample, &run, nullptr);
    run.time_ns = g_runtime->time->now_ns();
    run.cpu = sched_getcpu();
    uint64_t user_ns = 0, system_ns = 0;
    split_cpu_time(timer_ns, &user_ns, &system_ns);
    if (run.in_kernel > 0 && system_ns > 0) {
      run.system_ns = system_ns;
      uint64_t lost = 0;
      lumen::clock::visit_kernel_samples(t_kernel, end, write_kernel_sample, &run, &lost);
      write_chain(run);
      if (lost != 0) g_lost_chains.fetch_add(lost, std::memory_order_relaxed);
      system_ns = 0;
    }
    if (user_ns + system_ns > 0)
      write_sample(run.time_ns, g_runtime->stacks->capture_stack(ucontext, 0), user_ns, system_ns, run.cpu);
  }
  lumen::clock::consume_kernel_samples(t_kernel, end);
}

// Marks this plugin's timers, so that a SIGPROF from anything else (the
// target's own setitimer or timer) goes on to the target's handler.
constexpr int kTimerCookie = 0x6c756d65;  // "lume"

int on_profiling_signal(int, siginfo_t* info, void* ucontext) {
  if (info->si_code != SI_TIMER || info->si_value.sival_int != kTimerCookie) return 0;
  // Still pending when its thread's timer went (thread_end): taken, no sample.
  if (!t_timer.armed) return 1;
  const uint64_t timer_ns = static_cast<uint64_t>(g_interval_ns) * (1u + static_cast<uint32_t>(info->si_overrun));
  if (t_kernel.armed) {
    record_kernel_samples(ucontext, timer_ns);
  } else if (g_running.load(std::memory_order_acquire)) {
    const uint64_t time_ns = g_runtime->time->now_ns();
    const uint64_t stack = g_runtime->stacks->capture_stack(ucontext, 0);
    uint64_t user_ns = 0, system_ns = 0;
    split_cpu_time(timer_ns, &user_ns, &system_ns);
    write_sample(time_ns, stack, user_ns, system_ns, sched_getcpu());
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
  char kernel_note[320] = "";
  if (std::strcmp(lumen_option(options, count, "kernel_frames", "0"), "1") == 0) {
    char obstacle[240];
    if (LUMEN_PROVIDES(runtime->threads, run_in_own_table)) g_run_elsewhere = runtime->threads->run_in_own_table;
    lumen::clock::kernel_frames_obstacle(g_interval_ns, g_run_elsewhere, obstacle, sizeof obstacle);
    g_kernel_frames = obstacle[0] == '\0';
    if (!g_kernel_frames)
      std::snprintf(kernel_note, sizeof kernel_note, "clock: the kernel's frames are not recorded: %s", obstacle);
  }
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
  char note[256];
  const bool whole_ms = g_interval_ns % 1'000'000 == 0;
  std::snprintf(note, sizeof note,
                "clock: each thread sampled every %lld %s of its CPU time, split into user and system time by its "
                "rusage%s",
                static_cast<long long>(whole_ms ? g_interval_ns / 1'000'000 : g_interval_ns / 1000), whole_ms ? "ms" : "µs",
                g_kernel_frames ? "; the kernel's frames recorded (perf_event task-clock)" : "");
  runtime->recording->log_note(note);
  if (kernel_note[0] != '\0') runtime->recording->log_note(kernel_note);
  g_running.store(true, std::memory_order_release);
  return 0;
}

void thread_begin() {
  t_times = ThreadTimes{};
  read_thread_times(&t_times.user_ns, &t_times.system_ns);
  // A thread whose counter cannot be had (descriptors or locked memory
  // used up) has samples without the kernel's frames.
  if (g_kernel_frames)
    lumen::clock::arm_kernel_sampler(t_kernel, g_interval_ns, static_cast<pid_t>(g_runtime->threads->thread_id()),
                                     g_run_elsewhere);
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
  if (!t_timer.armed) {
    lumen::clock::disarm_kernel_sampler(t_kernel);
    return;
  }
  // SIGPROF blocked while the timer goes: a signal of it still pending is
  // delivered after, to an unarmed thread, and taken without a sample. By
  // system call: the collector's pthread_sigmask keeps SIGPROF unblocked.
  sigset_t prof, previous;
  sigemptyset(&prof);
  sigaddset(&prof, SIGPROF);
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, &prof, &previous, _NSIG / 8);
  if (t_timer.armed) timer_delete(t_timer.id);
  t_timer.armed = false;
  lumen::clock::disarm_kernel_sampler(t_kernel);
  record_tail();
  syscall(SYS_rt_sigprocmask, SIG_SETMASK, &previous, nullptr, _NSIG / 8);
}

// A forked child has no timers (POSIX timers are not inherited): the
// forking thread's id names nothing there, or a timer the child creates
// later. When the child is collected, thread_begin arms a new one (and
// reads the child thread's own times, which start again from zero).
// Nor is a counter's ring (perf maps it VM_DONTCOPY), nor the counter.
void fork_child() {
  t_timer.armed = false;
  t_kernel = KernelSampler{};
  g_lost_chains.store(0, std::memory_order_relaxed);
}

void stop() {
  g_running.store(false, std::memory_order_release);
  if (const uint64_t lost = g_lost_chains.load(std::memory_order_relaxed)) {
    char note[200];
    std::snprintf(note, sizeof note,
                  "clock: %llu samples in the kernel lost their kernel frames (a counter's ring was full); "
                  "their time is on the user stack",
                  static_cast<unsigned long long>(lost));
    g_runtime->recording->log_note(note);
  }
}

const lumen_option_def kOptions[] = {
    {"interval", LUMEN_OPTION_DURATION, "10ms", 100'000, 10'000'000'000, 1'000'000,
     "CPU time between samples of a thread; a number alone is in milliseconds"},
    {"kernel_frames", LUMEN_OPTION_BOOLEAN, "on", 0, 0, 0,
     "the kernel's frames above the system call in each sample, where perf_event allows (collect -k)"},
};

const lumen_flag_alias kFlagAliases[] = {{"on", "10ms"}, {"hi", "1ms"}, {"lo", "100ms"}};

const lumen_collector_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_collector_descriptor),
    .name = "clock",
    .version = "1.2",
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
    .host_hooks = nullptr,
    .attach = LUMEN_WORKS_AFTER_ATTACH,
};

}  // namespace

LUMEN_EXPORT const lumen_collector_descriptor* lumen_collector_plugin() {
  return &kPlugin;
}
