#include "attached_recording.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "clock_reading.h"
#include "experiment_directory.h"
#include "experiment_header.h"
#include "exported_function.h"
#include "install_layout.h"
#include "recording_end.h"
#include "runtime_injection.h"

namespace lumen::collect {

namespace fs = std::filesystem;

namespace {


std::string status_field(int pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind(field + ":", 0) == 0) {
      std::istringstream value(line.substr(field.size() + 1));
      std::string first;
      value >> first;
      return first;
    }
  return "";
}

std::string read_line(const std::string& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

std::vector<std::string> command_of(int pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::vector<std::string> words;
  for (std::string word; std::getline(file, word, '\0');) words.push_back(word);
  return words;
}

// Why this process may not trace `pid`, in words that say what to change;
// empty when it may. Probed by stopping its main thread for a moment.
std::string trace_refusal(int pid) {
  const std::string name = "process " + std::to_string(pid);
  const std::string tracer = status_field(pid, "TracerPid");
  if (!tracer.empty() && tracer != "0")
    return name + " is already traced by process " + tracer + " (" + read_line("/proc/" + tracer + "/comm") +
           "): a process has one tracer at a time; detach that one first";
  if (ptrace(PTRACE_SEIZE, pid, nullptr, nullptr) == 0) {
    // A seized thread is let go only stopped: a stop in a system call
    // restarts it as it resumes.
    int status = 0;
    if (ptrace(PTRACE_INTERRUPT, pid, nullptr, nullptr) == 0) waitpid(pid, &status, __WALL);
    ptrace(PTRACE_DETACH, pid, nullptr, nullptr);
    return "";
  }
  const int error = errno;
  if (error == ESRCH) return "no " + name + " (it ended, or never ran)";
  if (error != EPERM) return name + " cannot be traced: " + std::strerror(error);
  const std::string scope = read_line("/proc/sys/kernel/yama/ptrace_scope");
  const std::string owner = status_field(pid, "Uid");
  if (!owner.empty() && std::stoul(owner) != geteuid() && geteuid() != 0)
    return name + " belongs to user " + owner + ": only its owner (or root) may attach to it";
  if (scope == "1")
    return name + " cannot be traced: Yama's ptrace_scope is 1 (only a process's ancestors may trace it); run "
                  "collect -P as root, or set /proc/sys/kernel/yama/ptrace_scope to 0";
  if (scope == "2") return name + " cannot be traced: Yama's ptrace_scope is 2 (only root may trace); run collect -P as root";
  if (scope == "3") return name + " cannot be traced: Yama's ptrace_scope is 3 (no process may be traced until reboot)";
  return name + " cannot be traced: permission denied (a setuid program, or one that made itself undumpable)";
}

void refuse_plugins_needing_the_start(const CollectionPlan& plan, const std::map<std::string, InstalledPlugin>& installed) {
  for (const PlannedPlugin& p : plan.plugins) {
    const InstalledPlugin& plugin = installed.at(p.name);
    if (plugin.manifest && plugin.manifest->data().collector.works_after_attach) continue;
    throw UsageError("-P: " + p.name + " (" + std::string(plugin.collector.descriptor->description) +
                     ") does not work in a process that already runs: it needs the program's calls from its start. "
                     "Leave it out of the profile or flags, or start the program under collect");
  }
}

// The process's user must be able to write the experiment (root attaching
// to another user's process).
void give_to_owner(const fs::path& experiment, int pid) {
  struct stat process {};
  if (stat(("/proc/" + std::to_string(pid)).c_str(), &process) != 0 || process.st_uid == geteuid()) return;
  chown(experiment.c_str(), process.st_uid, process.st_gid);
}

enum class Ending { Deadline, Signal, ProcessEnded };

// Waits for the end of -t, a signal to collect, or the process's end.
Ending wait_for_end(int pid, long long deadline_ns, int* signal_seen) {
  const int process = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  sigset_t ending;
  sigemptyset(&ending);
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&ending, s);
  sigprocmask(SIG_BLOCK, &ending, nullptr);
  const int signals = signalfd(-1, &ending, SFD_CLOEXEC);
  for (;;) {
    int timeout = -1;
    if (deadline_ns != 0) {
      const long long left = deadline_ns - clock_ns(CLOCK_MONOTONIC);
      if (left <= 0) return Ending::Deadline;
      timeout = static_cast<int>(std::min<long long>(left / 1'000'000 + 1, 60'000));
    }
    pollfd fds[2] = {{signals, POLLIN, 0}, {process, POLLIN, 0}};
    if (poll(fds, process >= 0 ? 2 : 1, process >= 0 ? timeout : std::min(timeout < 0 ? 100 : timeout, 100)) < 0 &&
        errno != EINTR)
      return Ending::Signal;
    if (fds[0].revents & POLLIN) {
      signalfd_siginfo info{};
      if (read(signals, &info, sizeof info) == sizeof info) *signal_seen = static_cast<int>(info.ssi_signo);
      return Ending::Signal;
    }
    if ((process >= 0 && (fds[1].revents & POLLIN)) || (process < 0 && kill(pid, 0) != 0)) return Ending::ProcessEnded;
  }
}

long long ms_since(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace

int record_attached(const CollectRequest& request, CollectionPlan plan,
                    const std::map<std::string, InstalledPlugin>& installed) {
  const int pid = request.attach_pid;
  // A closed standard error must not end collect while the collector is
  // in the process: it detaches first.
  signal(SIGPIPE, SIG_IGN);
  if (pid == getpid()) throw UsageError("-P names collect itself");
  if (!fs::exists("/proc/" + std::to_string(pid))) throw UsageError("-P: no process " + std::to_string(pid) + " (it ended, or never ran)");
  if (const std::string refusal = trace_refusal(pid); !refusal.empty()) throw UsageError("-P: " + refusal);
  if (!attach::mapped_object(pid, "libc.so"))
    throw UsageError("-P: process " + std::to_string(pid) +
                     " is statically linked: the collector cannot be loaded into it. er_kernel records it from "
                     "outside (er_kernel -t SECONDS, then er_print -filters 'PID == " + std::to_string(pid) + "')");
  refuse_plugins_needing_the_start(plan, installed);
  plan.follow = "off";  // no call of the program's is interposed: its children are not followed
  const fs::path wanted = choose_experiment_path(request.experiment_name, request.directory, request.overwrite);
  if (request.overwrite) remove_replaced_experiment(wanted);
  metadata::ProcessFacts facts;
  facts.command = command_of(pid);
  facts.target_pid = pid;
  facts.attached = true;
  const fs::path experiment = create_experiment_directory(wanted);
  give_to_owner(experiment, pid);
  facts.start_wall_ns = clock_ns(CLOCK_REALTIME);
  plan.origin_ns = clock_ns(CLOCK_MONOTONIC);
  facts.start_monotonic_ns = plan.origin_ns;
  // collect ends the window by detaching: the runtime records until then,
  // and what it holds by then (a heap batch) is written at the detach.
  CollectionPlan runtime_plan = plan;
  runtime_plan.runtime.window_end_ns = 0;
  write_runtime_plan(runtime_plan, experiment / metadata::kPlanFile);
  std::string error;
  if (!metadata::write_header_file(experiment.string(), metadata::header_text(plan, facts, nullptr), error))
    throw std::runtime_error(error);
  const auto attach_began = std::chrono::steady_clock::now();
  attach::InjectedRuntime runtime;
  attach::ThreadRollCall threads;
  try {
    runtime = attach::inject_runtime(pid, fs::canonical(host::runtime_library()).string(), fs::absolute(experiment).string());
    threads = attach::begin_every_thread(runtime);
  } catch (const std::exception& e) {
    std::error_code ec;
    fs::remove_all(experiment, ec);  // nothing was recorded
    throw std::runtime_error("cannot attach to process " + std::to_string(pid) + ": " + e.what());
  }
  std::cerr << "collect: attached to process " << pid << " (" << threads.begun << " threads) in " << ms_since(attach_began)
            << " ms; recording " << experiment.filename().string()
            << (plan.runtime.window_end_ns ? "" : " until ^C or the process ends") << "\n";
  if (threads.missed != 0) std::cerr << "collect: " << threads.missed << " threads could not be stopped and are not recorded\n";
  const std::vector<PluginFailure> failures = plugin_failures(experiment);
  for (const PluginFailure& failure : failures) std::cerr << "collect: warning: " << failure.text() << "\n";
  const auto failed = [&](const PlannedPlugin& p) {
    return std::any_of(failures.begin(), failures.end(), [&](const PluginFailure& f) { return f.plugin == p.name; });
  };
  if (!plan.plugins.empty() && std::all_of(plan.plugins.begin(), plan.plugins.end(), failed)) {
    // Nothing can be recorded: the process is let go at once.
    attach::detach_runtime(runtime);
    std::error_code ec;
    fs::remove_all(experiment, ec);
    throw std::runtime_error("cannot record process " + std::to_string(pid) + ": no plugin could start in it");
  }
  int signal_seen = 0;
  const long long deadline = plan.runtime.window_end_ns ? plan.origin_ns + plan.runtime.window_end_ns : 0;
  const Ending ending = wait_for_end(pid, deadline, &signal_seen);
  metadata::ProcessEnd end;
  if (ending != Ending::ProcessEnded) {
    const auto detach_began = std::chrono::steady_clock::now();
    try {
      const attach::DetachOutcome outcome = attach::detach_runtime(runtime);
      end.detached = true;
      std::cerr << "collect: detached from process " << pid << " in " << ms_since(detach_began) << " ms"
                << (outcome.unloaded          ? ""
                    : outcome.why_loaded == 3 ? "; a thread is still inside a traced call (a wait that has not ended) "
                                                "or the collector's code, so the collector stays loaded there, inert "
                                                "(a later attach unloads it once that call has returned)"
                    : outcome.why_loaded == 2 ? "; a thread was never stopped outside the collector's code, so the "
                                                "collector stays loaded there, inert (a later attach unloads it)"
                                              : "; a thread of the collector did not end, so its code stays loaded, "
                                                "inert (a later attach unloads it)")
                << "\n";
    } catch (const std::exception& e) {
      // It ended meanwhile, or cannot be stopped any more.
      if (kill(pid, 0) == 0) {
        std::cerr << "collect: detaching from process " << pid << " failed: " << e.what() << "\n";
        end.cut_short = std::string("the detach failed: ") + e.what();
        end.detached = true;
      } else {
        end.exit_seen = true;
      }
    }
  } else {
    end.exit_seen = true;
    std::cerr << "collect: process " << pid << " ended\n";
  }
  end.end_wall_ns = clock_ns(CLOCK_REALTIME);
  if (plan.runtime.size_limit_bytes != 0) end.size_limit_reached = size_limit_reached(experiment);
  if (!metadata::write_header_file(experiment.string(), metadata::header_text(plan, facts, &end), error))
    throw std::runtime_error(error);
  finish_recording(experiment, plan, true);
  return 0;
}

}  // namespace lumen::collect
