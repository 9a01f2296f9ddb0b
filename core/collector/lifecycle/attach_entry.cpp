// The runtime's entry points for collect -P, which loads the runtime into
// a running process and calls these on threads it stopped
// (host/attach/hijacked_thread.cpp): each runs where the thread was
// stopped, as a signal handler would, and the thread then goes on as it
// was (a system call it was in is restarted). The tracing plugins'
// interposers are reached through the program's redirected GOT slots
// (lumen_attach_calls), put back before any thread's collection ends.
//
// Nothing on these paths may call nanosleep or clock_nanosleep: each
// resets the thread's restart block, and a sleep of the program's that
// collect interrupted would then end early with EINTR instead of going on.
#include <lumen/collector_plugin.h>

#include <signal.h>
#include <ucontext.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <poll.h>
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "interposers/call_redirection.h"
#include "interposers/thread_interposers.h"
#include "lifecycle/experiment_log.h"
#include "lifecycle/plugin_host.h"
#include "lifecycle/runtime_state.h"
#include "experiment_metadata.h"
#include "recording/file_keeper.h"
#include "recording/run_pool.h"
#include "recording/runtime_fds.h"
#include "signals/signal_chain.h"
#include "threads/own_descriptor_table.h"
#include "threads/own_thread_start.h"
#include "threads/own_threads_alive.h"
#include "threads/program_thread_state.h"
#include "time/clock.h"

namespace lumen::collector {

namespace {

// A thread stopped inside the runtime's own work (a signal handler of the
// collector's) is asked again later: 0 means done, not applicable (-1 busy).
constexpr int kBusy = -1;

// A thread collect stopped in a wait of the runtime's own (for the file
// keeper) is inside it too: its stack holds the runtime's frames.
bool inside_runtime(const ThreadState& thread) {
  return thread.interposer_depth > 0 || thread.in_dispatch > 0 || waiting_for_file_keeper();
}

// lumen_detach_thread's answers for a thread inside a plugin's interposer
// (below it, a wait of the program's): its collection ended now (3) or
// before (2); asked again until it is out, the plugin cannot be unloaded.
constexpr int kEndedInside = 3;
constexpr int kInside = 2;

bool thread_gone(uint32_t tid) { return syscall(SYS_tgkill, getpid(), tid, 0) != 0 && errno == ESRCH; }

// The collector's threads end once collection stops; the runtime's code may
// be unloaded only when none is left on them. One may start while the stop
// runs (the /proc reader, asked again): the registered ones are read until
// none is left, and every one seen must be gone.
bool collector_threads_gone(std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  uint32_t seen[128];
  // Those that ended their listing already may still run the runtime's code.
  size_t seen_count = ended_collector_thread_ids(seen, 64);
  for (;;) {
    uint32_t now[64];
    const size_t count = collector_thread_ids(now, std::size(now));
    for (size_t i = 0; i < count; ++i)
      if (std::find(seen, seen + seen_count, now[i]) == seen + seen_count && seen_count < std::size(seen))
        seen[seen_count++] = now[i];
    if (count == 0 && std::all_of(seen, seen + seen_count, thread_gone)) return true;
    if (std::chrono::steady_clock::now() >= until) return false;
    poll(nullptr, 0, 1);
  }
}

std::atomic<bool> g_detach_begun{false};
std::atomic<uint32_t> g_attached_here{0};  // the thread lumen_attach began

// collect's own process: when it ends without detaching (killed), the
// runtime stops collection by itself (the experiment stays whole; the
// runtime stays loaded, its handlers taking the timers' last signals).
std::atomic<bool> g_detaching{false};
pid_t g_collect_pid = 0;

void* watch_collect(void*) {
  const RuntimeGuard guard;  // the runtime's own for its whole life
  pthread_setname_np(pthread_self(), "lumen-attach");
  mark_collector_thread();
  take_own_descriptor_table();
  const int collect = static_cast<int>(syscall(SYS_pidfd_open, g_collect_pid, 0));
  bool collect_ended = false;
  while (!collect_ended && !g_detaching.load(std::memory_order_acquire)) {
    pollfd watched{collect, POLLIN, 0};
    if (collect >= 0)
      collect_ended = poll(&watched, 1, 20) > 0;
    else
      collect_ended = poll(nullptr, 0, 20) == 0 && kill(g_collect_pid, 0) != 0 && errno == ESRCH;
  }
  if (collect >= 0) close(collect);
  if (collect_ended && !g_detaching.load(std::memory_order_acquire)) {
    experiment_log_event(lumen::metadata::log_event::kNote,
                         "text: \"collect ended without detaching: collection stopped here; the runtime stays loaded\"");
    plugins_stop_interposing();
    stop_collection();
  }
  collector_thread_ends();
  return nullptr;
}

// The calling thread's claimed signals that arrived while collect held
// every signal blocked for its call: the collector's own (a timer's
// expiry before its thread_end deleted it) are taken here, where its
// handlers still run; another's is sent again for the program.
void take_pending_claimed_signals() {
  ucontext_t context;
  getcontext(&context);
  for (int signal = 1; signal < NSIG; ++signal) {
    if (!signal_claimed(signal)) continue;
    sigset_t one;
    sigemptyset(&one);
    sigaddset(&one, signal);
    const timespec now{0, 0};
    siginfo_t info;
    while (sigtimedwait(&one, &info, &now) == signal)
      if (!collector_takes(signal, &info, &context)) hold_again_for_target(signal, &info);
  }
}

}  // namespace

bool detach_begun() { return g_detach_begun.load(std::memory_order_acquire); }

}  // namespace lumen::collector

using namespace lumen::collector;

// 1 once collection runs and a plugin has interposers (collect then calls
// lumen_attach_calls), 0 once it runs with none; -1 when it cannot start
// (the experiment's log says why where it could be opened). Collection
// stops by itself if `collect_pid` ends first. `threads`: how many the
// process has, which collect's roll call begins together next. The
// calling thread (one of the program's) begins here: the first blocks its
// begin took show the run pool which streams a thread's begin writes to,
// and the pool prepares one of each for every other thread meanwhile (made
// by the thread itself, each is some 100 µs of the roll call's CPU).
LUMEN_EXPORT int lumen_attach(const char* experiment, int collect_pid, int threads) {
  if (!start_attached_collection(experiment)) return -1;
  g_collect_pid = collect_pid;
  g_detaching.store(false, std::memory_order_release);
  g_detach_begun.store(false, std::memory_order_release);
  pthread_t watcher;
  if (start_runtime_thread(&watcher, watch_collect, nullptr, 64 * 1024)) pthread_detach(watcher);
  if (collecting() && !is_collector_thread() && !inside_runtime(current_thread())) {
    runtime_thread_begin();
    hear_thread_end_here();
    g_attached_here.store(current_thread().tid, std::memory_order_relaxed);
    run_pool_expect_thread_begins(threads > 1 ? static_cast<uint32_t>(threads - 1) : 0);
  }
  return plugins_have_interposers() ? 1 : 0;
}

// 1: the calling thread's collection began; 0: nothing to do (not
// collecting, a collector thread, begun already); -1: ask again later.
LUMEN_EXPORT int lumen_attach_thread(void) {
  if (!collecting() || !attached() || is_collector_thread()) return 0;
  ThreadState& thread = current_thread();
  if (inside_runtime(thread)) return kBusy;
  // The thread lumen_attach ran on began there, with the attach.
  if (thread.collection_began) return thread.tid == g_attached_here.load(std::memory_order_relaxed) ? 1 : 0;
  runtime_thread_begin();
  hear_thread_end_here();  // its end, if it ends while attached
  return 1;
}

// A call meant for a program's thread, made on one of the collector's
// (collect did not know it yet): collect asks another.
constexpr int kNotProgramThread = -2;

// Once every thread's collection has begun: the program's calls of the
// functions the plugins interpose on lead to their interposers.
LUMEN_EXPORT int lumen_attach_calls(void) {
  if (is_collector_thread()) return kNotProgramThread;
  if (!collecting() || !attached()) return 0;
  const RuntimeGuard guard;
  const int slots = plugins_interpose_program_calls();
  if (slots > 0)
    experiment_log_event(lumen::metadata::log_event::kNote,
                         "text: \"" + std::to_string(slots) + " call slots of the process lead to the tracing plugins' "
                         "interposers\"");
  return 0;
}

// Before the threads' collection ends: the redirected slots are put back,
// and threads started from now on are not collected (the roll call that
// follows may have passed them).
LUMEN_EXPORT int lumen_detach_calls(void) {
  if (is_collector_thread()) return kNotProgramThread;
  if (!attached()) return 0;
  g_detach_begun.store(true, std::memory_order_release);
  const RuntimeGuard guard;
  plugins_stop_interposing();
  return 0;
}

// 1: the calling thread's collection ended; 0: it had none; -1: ask again;
// 3 and 2: as 1 and 0, but the thread is inside an interposer (ask again
// to see it leave). Its collection ends even then: the interposer records
// nothing more, and its timers and signals must not outlive the detach.
LUMEN_EXPORT int lumen_detach_thread(void) {
  if (!attached() || t_thread_state == nullptr || is_collector_thread()) return 0;
  ThreadState& thread = current_thread();
  if (inside_runtime(thread)) return kBusy;
  int answer = 0;
  if (thread.collection_began) {
    runtime_thread_end();
    take_pending_claimed_signals();
    answer = 1;
  }
  if (plugins_calls_in_progress() > 0) return answer == 1 ? kEndedInside : kInside;
  return answer;
}

// After every thread's collection ended: collection stops, the collector's
// threads end, the program's signal dispositions and descriptors are as
// before the attach. `threads_inside` (collect found a thread it could not
// see leave the collector's code: one waiting inside an interposer) keeps
// the plugins loaded. 0: nothing of the runtime's runs any more and it may
// be unloaded; 1: it stays loaded, a thread of its own still running or
// one inside; -2: called on a thread of the collector's (whose descriptor
// table is its own), or on one stopped while it waits for the file keeper
// (a writer of the runtime's, which may hold a block stopping collection
// waits for): call it on another thread of the program's.
LUMEN_EXPORT int lumen_detach(int threads_inside) {
  if (is_collector_thread() || waiting_for_file_keeper()) return kNotProgramThread;
  if (!attached()) return 1;
  g_detaching.store(true, std::memory_order_release);
  plugins_stop_interposing();
  const bool was_collecting = collecting();
  // The thread collect stopped for this ended its own collection in the
  // roll call before; the stop writes the last records (a sample point)
  // from it.
  current_thread().finished = false;
  stop_collection();
  const bool gone = collector_threads_gone(std::chrono::seconds(5));
  if (was_collecting)
    experiment_log_event(lumen::metadata::log_event::kDetached, "time_ns: " + std::to_string(monotonic_ns()));
  release_claimed_signals();
  if (threads_inside == 0) plugins_unload();
  experiment_log_close();
  int fds[256];
  for (int round = 0, n; round < 64 && (n = runtime_fds_between(0, ~0u, fds, static_cast<int>(std::size(fds)))) > 0; ++round)
    for (int i = 0; i < n; ++i) close_runtime_fd(fds[i]);
  restore_redirected_calls();  // libunwind stays loaded where libstdc++ came with the runtime
  // Calls that came through the slots before they were put back.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!program_calls_left_runtime() && std::chrono::steady_clock::now() < until) sched_yield();
  if (!program_calls_left_runtime()) return 1;
  if (!gone || threads_inside != 0) return 1;
  stop_hearing_thread_ends();
  forget_ended_collector_threads();  // seen gone
  return 0;
}

// For a later collect -P that finds this runtime loaded already. 2: it
// records (the process started under collect, or an attach runs); 1: a
// thread of the collector's still runs; 0: an earlier detach left it
// loaded, inert, and once collect asked each thread whether it is inside
// a plugin's interposer (lumen_thread_inside), `unload` 1 unloads the
// plugins, and collect may unload the runtime once it sees no other
// thread in its code (lumen_unloading, then dlclose).
LUMEN_EXPORT int lumen_leftover(int unload) {
  if (is_collector_thread() || waiting_for_file_keeper()) return kNotProgramThread;
  if (collecting() || !attached() || !g_detaching.load(std::memory_order_acquire)) return 2;
  if (!program_calls_left_runtime() || !collector_threads_gone(std::chrono::milliseconds(100))) return 1;
  if (unload == 1) {
    plugins_unload();
    stop_hearing_thread_ends();
    forget_ended_collector_threads();
  }
  return 0;
}

// 2: the calling thread is inside a plugin's interposer (a traced wait
// that began while attached); -1: inside the runtime's own work; 0: neither.
LUMEN_EXPORT int lumen_thread_inside(void) {
  if (is_collector_thread() || t_thread_state == nullptr) return 0;
  if (inside_runtime(current_thread())) return kBusy;
  return plugins_calls_in_progress() > 0 ? kInside : 0;
}

// Called by collect right before it unloads the runtime, once it saw every
// other thread outside the collector's code: the threads' states are given
// back. Not in lumen_detach: where collect keeps the runtime loaded after
// all (a thread it could not see leave), threads keep pointers to their
// states, which a later attach to the same process uses again.
LUMEN_EXPORT void lumen_unloading(void) { release_thread_states(); }
