#include "runtime_injection.h"

#include <dlfcn.h>
#include <sys/uio.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>
#include <set>
#include <stdexcept>
#include <thread>

#include "exported_function.h"
#include "process_threads.h"
#include "raised_priority.h"

namespace lumen::attach {

namespace {

using std::chrono::milliseconds;

constexpr milliseconds kLoadLimit{10'000};
constexpr milliseconds kThreadLimit{5'000};
constexpr milliseconds kBusyLimit{2'000};  // for threads inside the collector's code or its interposers
constexpr int kBusy = -1;  // the runtime's answer for a thread inside its own work
// The runtime's answer on a thread of the collector's (lumen_detach's also
// on one in its wait): another thread is asked.
constexpr int kNotProgramThread = -2;
// lumen_detach_thread's for a thread inside a plugin's interposer: its
// collection ended now, or before.
constexpr int kEndedInside = 3;
constexpr int kInside = 2;

uint64_t libc_function(pid_t pid, const MappedObject& libc, const char* name) {
  const std::optional<uint64_t> value = exported_function(pid, libc, name);
  if (!value)
    throw std::runtime_error("the C library of process " + std::to_string(pid) + " (" + libc.path + ") exports no " +
                             name + " (a glibc before 2.34 keeps it in libdl, which the process has not loaded)");
  return libc.base + *value;
}

std::string read_string(pid_t pid, uint64_t address) {
  char text[512] = "";
  iovec local{text, sizeof text - 1};
  iovec remote{reinterpret_cast<void*>(address), sizeof text - 1};
  if (address == 0 || process_vm_readv(pid, &local, 1, &remote, 1, 0) <= 0) return "";
  return text;
}

// The collector's code in the process: the runtime's and its plugins'.
std::vector<CodeRange> collector_code(pid_t pid) {
  return code_of(pid, [](const std::string& path) {
    return path.find("/liblumen_collector") != std::string::npos || path.find("/lumen/plugins/") != std::string::npos;
  });
}

// The collector's own threads, as the experiment's log names them: they
// keep running through a roll call (a thread's begin may wait for one).
std::set<pid_t> collector_threads(const std::string& experiment) {
  std::set<pid_t> tids;
  if (experiment.empty()) return tids;  // an earlier runtime's, whose threads ended
  std::ifstream log(experiment + "/collector.log");
  const std::string marker = "event: collector_thread, tid: ";
  for (std::string line; std::getline(log, line);)
    if (const size_t at = line.find(marker); at != std::string::npos)
      tids.insert(static_cast<pid_t>(std::atol(line.c_str() + at + marker.size())));
  return tids;
}

// Runs `function` on each thread of the process until every thread has
// answered, and again for threads that appeared meanwhile. The program's
// threads are stopped together first, then the calls run on all of them at
// once (the program's own code runs on none meanwhile), each awaited in
// turn. A thread stopped in the collector's own code (a
// handler of its, a new thread's start) is busy: let go, and asked again
// on its own.
ThreadRollCall roll_call(pid_t pid, const std::string& experiment, uint64_t function) {
  const std::vector<CodeRange> collector = collector_code(pid);
  const RaisedPriority first({0});
  ThreadRollCall result;
  std::set<pid_t> answered;
  std::vector<pid_t> busy;
  std::map<pid_t, int> latest;  // each busy thread's latest answer
  auto count = [&result](int answer) {
    if (answer == 1 || answer == kEndedInside)
      ++result.begun;
    else if (answer == kInside)
      return;
    else if (answer == 0)
      ++result.skipped;
    else
      ++result.missed;
  };
  // A thread that could not be stopped or called: missed, unless it ended
  // meanwhile (a short-lived thread of the program's).
  auto lost = [&](pid_t tid) {
    if (thread_ended(pid, tid))
      ++result.ended;
    else
      count(-2);
  };
  // Asks the threads not asked yet, stopped together; false when none.
  auto ask_new_threads = [&]() {
    const std::set<pid_t> collectors = collector_threads(experiment);
    std::vector<pid_t> asked;
    for (const pid_t tid : process_threads(pid)) {
      if (answered.count(tid) != 0 || collectors.count(tid) != 0) continue;
      answered.insert(tid);
      if (HijackedThread::interrupt(tid))
        asked.push_back(tid);
      else
        lost(tid);
    }
    std::vector<std::unique_ptr<HijackedThread>> stopped;
    for (const pid_t tid : asked) {
      try {
        stopped.push_back(std::make_unique<HijackedThread>(pid, tid, HijackedThread::Interrupted{}));
      } catch (const std::exception&) {
        lost(tid);
      }
    }
    // The calls run at once, each on its thread, and are awaited after:
    // one at a time, each would wait for its thread to be scheduled.
    std::vector<HijackedThread*> calling;
    for (const auto& thread : stopped) {
      if (inside(collector, thread->stopped_pc())) {
        busy.push_back(thread->tid());
        latest[thread->tid()] = kBusy;
        continue;
      }
      try {
        thread->start_call(function, {});
        calling.push_back(thread.get());
      } catch (const std::exception&) {
        lost(thread->tid());
      }
    }
    for (HijackedThread* thread : calling) {
      try {
        const int answer = static_cast<int>(thread->finish_call(kThreadLimit));
        thread->restore();  // while the others' calls run
        if (answer != kBusy) count(answer);
        if (answer == kBusy || answer == kInside || answer == kEndedInside) {
          busy.push_back(thread->tid());
          latest[thread->tid()] = answer;
        }
      } catch (const std::exception&) {
        lost(thread->tid());
      }
    }
    return !asked.empty();
  };
  while (ask_new_threads()) {
  }
  // Asked again in turn until a common deadline: a thread in a traced wait
  // (a join, a lock) is inside the interposer until the wait ends. Threads
  // created meanwhile are asked as they appear.
  const auto until = std::chrono::steady_clock::now() + kBusyLimit;
  while (!busy.empty()) {
    std::vector<pid_t> still;
    for (const pid_t tid : busy) {
      int answer;
      try {
        HijackedThread thread(pid, tid);
        answer = inside(collector, thread.stopped_pc()) ? kBusy : static_cast<int>(thread.call(function, {}, kThreadLimit));
      } catch (const std::exception&) {
        lost(tid);
        continue;
      }
      if (answer != kBusy) count(answer);
      if (answer == kBusy || answer == kInside || answer == kEndedInside) {
        still.push_back(tid);
        if (answer != kBusy || latest[tid] == kBusy) latest[tid] = answer;
      }
    }
    busy.swap(still);
    while (ask_new_threads()) {
    }
    if (busy.empty() || std::chrono::steady_clock::now() >= until) break;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  for (const pid_t tid : busy) {
    ++result.inside;
    if (latest[tid] == kBusy) count(kBusy);  // never answered: its collection did not end
  }
  return result;
}

// Whether every thread but `calling` is outside the collector's code (a
// new thread's last instructions of its start stub), seen with all of them
// stopped together; asked again for up to a second.
bool all_outside_collector(pid_t pid, pid_t calling) {
  const std::vector<CodeRange> collector = collector_code(pid);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    std::vector<pid_t> asked;
    for (const pid_t tid : process_threads(pid))
      if (tid != calling && HijackedThread::interrupt(tid)) asked.push_back(tid);
    bool outside = true;
    {
      std::vector<std::unique_ptr<HijackedThread>> stopped;
      for (const pid_t tid : asked) {
        try {
          stopped.push_back(std::make_unique<HijackedThread>(pid, tid, HijackedThread::Interrupted{}));
          outside = outside && !inside(collector, stopped.back()->stopped_pc());
        } catch (const std::exception&) {
        }
      }
    }
    if (outside) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// `calls` on a thread of the program's, stopped where the dynamic linker
// may be entered (redirecting takes its lock); their answer. A thread the
// runtime answers is its own (one the log did not name yet) is added to
// `passed_over`, and another is asked.
uint64_t on_thread_of_program(pid_t pid, std::set<pid_t>& passed_over,
                              const std::function<uint64_t(HijackedThread&)>& calls) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    std::unique_ptr<HijackedThread> thread = stop_thread_for_loading(pid, passed_over);
    const uint64_t answer = calls(*thread);
    if (static_cast<int>(answer) != kNotProgramThread) return answer;
    passed_over.insert(thread->tid());
  }
  throw std::runtime_error("no thread of process " + std::to_string(pid) + " but the collector's could be stopped");
}

// A runtime already loaded in the process: one an earlier attach's detach
// left loaded, inert, is unloaded first where it now can be (no thread is
// inside it any more), since a runtime starts once per load; otherwise the
// attach is refused with the reason.
void unload_earlier_runtime(pid_t pid, const MappedObject& earlier, uint64_t dlopen_at, uint64_t dlclose_at) {
  const std::string name = "process " + std::to_string(pid);
  const std::optional<uint64_t> leftover = exported_function(pid, earlier, "lumen_leftover");
  const std::optional<uint64_t> thread_inside = exported_function(pid, earlier, "lumen_thread_inside");
  const std::optional<uint64_t> unloading = exported_function(pid, earlier, "lumen_unloading");
  if (!leftover || !thread_inside || !unloading)
    throw std::runtime_error(name + " has another lumen's collector loaded (" + earlier.path + "): it is recorded already");
  std::set<pid_t> passed_over;  // the runtime's own threads, as it answers
  const auto on_program_thread = [&](const std::function<uint64_t(HijackedThread&)>& calls) {
    return on_thread_of_program(pid, passed_over, calls);
  };
  // A reference of this attach's own keeps it loaded meanwhile.
  uint64_t handle = 0;
  const int state = static_cast<int>(on_program_thread([&](HijackedThread& thread) -> uint64_t {
    if (handle == 0)
      handle = thread.call(dlopen_at, {thread.push_string(earlier.path), RTLD_NOW | RTLD_NOLOAD}, kLoadLimit);
    return handle == 0 ? 0 : thread.call(earlier.base + *leftover, {0}, kLoadLimit);
  }));
  if (handle == 0) return;  // unloaded meanwhile
  const bool someone_inside = state == 0 && roll_call(pid, "", earlier.base + *thread_inside).inside != 0;
  bool unloaded = false;
  on_program_thread([&](HijackedThread& thread) -> uint64_t {
    if (state == 0 && !someone_inside) {
      const int answer = static_cast<int>(thread.call(earlier.base + *leftover, {1}, kLoadLimit));
      if (answer == kNotProgramThread) return static_cast<uint64_t>(answer);
      if (answer == 0 && all_outside_collector(pid, thread.tid())) {
        thread.call(earlier.base + *unloading, {}, kLoadLimit);
        thread.call(dlclose_at, {handle}, kLoadLimit);  // the earlier attach's reference
        unloaded = true;
      }
    }
    thread.call(dlclose_at, {handle}, kLoadLimit);  // this one's
    return 0;
  });
  if (unloaded) return;
  throw std::runtime_error(
      state == 2 ? name + " is recorded already: it runs under collect, or another collect -P is attached to it"
      : someone_inside
          ? "the collector an earlier attach loaded stays in " + name +
                ", inert: a thread is still inside a call it traced then (a wait that has not ended). Attach again "
                "once that call has returned"
          : "the collector an earlier attach loaded stays in " + name +
                ", inert: a thread still runs its code. Attach again in a moment");
}

}  // namespace

InjectedRuntime inject_runtime(pid_t pid, const std::string& runtime, const std::string& experiment) {
  const std::optional<MappedObject> libc = mapped_object(pid, "libc.so");
  if (!libc)
    throw std::runtime_error("process " + std::to_string(pid) +
                             " has no C library loaded (a statically linked program): the collector cannot be loaded "
                             "into it; er_kernel records it from outside (its functions and the kernel's)");
  InjectedRuntime injected;
  injected.pid = pid;
  injected.experiment = experiment;
  const uint64_t dlopen_at = libc_function(pid, *libc, "dlopen");
  const uint64_t dlerror_at = libc_function(pid, *libc, "dlerror");
  injected.dlclose = libc_function(pid, *libc, "dlclose");
  if (const std::optional<MappedObject> earlier = mapped_object(pid, "liblumen_collector"))
    unload_earlier_runtime(pid, *earlier, dlopen_at, injected.dlclose);
  const RaisedPriority first({0});
  // The program's busy threads wait meanwhile (they would hold the CPUs
  // the load waits for); a call that is slow may wait for one of them,
  // and lets them go.
  HeldThreads held = hold_running_threads(pid);
  std::unique_ptr<HijackedThread> thread = stop_thread_for_loading(pid, {}, &held);
  const auto let_go = [&held] { held.clear(); };
  const uint64_t path = thread->push_string(runtime);
  injected.handle = thread->call(dlopen_at, {path, RTLD_NOW | RTLD_LOCAL}, kLoadLimit, let_go);
  if (injected.handle == 0) {
    const std::string why = read_string(pid, thread->call(dlerror_at, {}, kLoadLimit));
    throw std::runtime_error("process " + std::to_string(pid) + " could not load the collector: " +
                             (why.empty() ? runtime : why));
  }
  const std::optional<MappedObject> loaded = mapped_object_at(pid, runtime);
  auto entry = [&](const char* name) {
    const std::optional<uint64_t> value = loaded ? exported_function(pid, *loaded, name) : std::nullopt;
    if (!value) throw std::runtime_error(runtime + " has no " + name + " (not this lumen's runtime)");
    return loaded->base + *value;
  };
  try {
    injected.attach_thread = entry("lumen_attach_thread");
    injected.detach_thread = entry("lumen_detach_thread");
    injected.detach = entry("lumen_detach");
    injected.unloading = entry("lumen_unloading");
    injected.attach_calls = entry("lumen_attach_calls");
    injected.detach_calls = entry("lumen_detach_calls");
    const uint64_t directory = thread->push_string(experiment);
    const uint64_t collect = static_cast<uint64_t>(getpid());
    const uint64_t threads = process_threads(pid).size();
    const int started =
        static_cast<int>(thread->call(entry("lumen_attach"), {directory, collect, threads}, kLoadLimit, let_go));
    let_go();
    injected.calls_to_redirect = started == 1;
    if (started != 0 && started != 1)
      throw std::runtime_error("the collector loaded into process " + std::to_string(pid) +
                               " could not start (its log in " + experiment + " says why)");
  } catch (...) {
    thread->call(injected.dlclose, {injected.handle}, kLoadLimit);
    throw;
  }
  return injected;
}

void call_on_program_thread(const InjectedRuntime& runtime, uint64_t function) {
  std::set<pid_t> collectors = collector_threads(runtime.experiment);
  on_thread_of_program(runtime.pid, collectors,
                       [function](HijackedThread& thread) { return thread.call(function, {}, kLoadLimit); });
}

ThreadRollCall begin_every_thread(const InjectedRuntime& runtime) {
  const ThreadRollCall result = roll_call(runtime.pid, runtime.experiment, runtime.attach_thread);
  if (runtime.calls_to_redirect) call_on_program_thread(runtime, runtime.attach_calls);
  return result;
}

DetachOutcome detach_runtime(const InjectedRuntime& runtime) {
  DetachOutcome outcome;
  call_on_program_thread(runtime, runtime.detach_calls);
  outcome.threads = roll_call(runtime.pid, runtime.experiment, runtime.detach_thread);
  // On a thread of the program's: the collector's own have descriptor
  // tables of their own, and the detach waits for them to end.
  // A program's thread that answers so waits for the collector's file
  // keeper, which answers it within milliseconds: asked again after a pause.
  std::set<pid_t> collectors = collector_threads(runtime.experiment);
  std::unique_ptr<HijackedThread> thread;
  int left = kNotProgramThread;
  for (int attempt = 0; left == kNotProgramThread; ++attempt) {
    if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(attempt < 100 ? 2 : 20));
    thread = stop_thread_for_loading(runtime.pid, collectors);
    left = static_cast<int>(thread->call(runtime.detach, {outcome.threads.inside != 0 ? 1u : 0u}, kLoadLimit));
    if (left == kNotProgramThread && attempt >= 300) collectors.insert(thread->tid());
  }
  outcome.why_loaded = left;
  // A thread never found outside the collector's code may still run it.
  if (outcome.threads.inside != 0)
    outcome.why_loaded = 3;
  else if (left == 0 && (outcome.threads.missed != 0 || !all_outside_collector(runtime.pid, thread->tid())))
    outcome.why_loaded = 2;
  if (outcome.why_loaded == 0) {
    thread->call(runtime.unloading, {}, kLoadLimit);
    thread->call(runtime.dlclose, {runtime.handle}, kLoadLimit);
    outcome.unloaded = true;
  }
  return outcome;
}

}  // namespace lumen::attach
