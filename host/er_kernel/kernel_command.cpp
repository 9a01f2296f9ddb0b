#include "kernel_command.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include <lumen/record_format.h>

#include "archive_writer.h"
#include "block_file.h"
#include "command_line.h"
#include "cpu_sampler.h"
#include "experiment_directory.h"
#include "experiment_metadata.h"
#include "install_layout.h"
#include "kernel_options.h"
#include "kernel_symbols.h"
#include "perf_records.h"
#include "plugin_catalog.h"
#include "system_recording.h"
#include "yaml_text.h"

namespace lumen::kernel {

namespace {

namespace fs = std::filesystem;

volatile sig_atomic_t g_signal = 0;
volatile sig_atomic_t g_signal_from_terminal = 0;
void note_signal(int signal, siginfo_t* info, void*) {
  g_signal = signal;
  // Ctrl-C and a hang-up reach the command too (one process group): never twice.
  g_signal_from_terminal = info != nullptr && info->si_code == SI_KERNEL;
}

// The dispositions er_kernel changes for itself, given back to the command.
struct sigaction g_command_sigchld {}, g_command_sigpipe {};

uint64_t monotonic_ns() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
}

// The clock plugin's records are what er_kernel writes: its analysis half
// reads them. Its manifest gives the version and data file to declare.
metadata::PlannedPlugin clock_plugin(unsigned long long interval_ns) {
  host::PluginDirectory directory{"clock", host::plugin_directory() / "clock", host::PluginOrigin::Shipped};
  const auto manifest = host::read_plugin_manifest(directory);
  if (!manifest) throw std::runtime_error("the clock plugin is not installed in " + directory.directory.string());
  return {"clock", manifest->data().collector.version, manifest->data().data_file, directory.collector_path(),
          {{"interval", std::to_string(interval_ns)}}};
}

// A command waiting for the word to exec, so its whole life is sampled.
pid_t start_command(const std::vector<std::string>& command, int& go_fd) {
  int go[2];
  if (pipe2(go, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  const pid_t child = fork();
  if (child < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (child == 0) {
    sigaction(SIGCHLD, &g_command_sigchld, nullptr);
    sigaction(SIGPIPE, &g_command_sigpipe, nullptr);
    close(go[1]);
    char byte;
    if (read(go[0], &byte, 1) != 1) _exit(127);
    std::vector<char*> argv;
    for (const std::string& word : command) argv.push_back(const_cast<char*>(word.c_str()));
    argv.push_back(nullptr);
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "er_kernel: cannot run %s: %s\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  close(go[0]);
  go_fd = go[1];
  return child;
}

metadata::ProcessEnd ending_of(int status) {
  metadata::ProcessEnd end;
  end.exited = WIFEXITED(status);
  end.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  end.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  end.end_wall_ns = metadata::wall_clock_ns();
  return end;
}

void write_log(const fs::path& experiment, const std::vector<std::string>& notes) {
  std::ofstream log(experiment / metadata::kLogFile, std::ios::app);
  for (const std::string& note : notes)
    log << "- {event: " << metadata::log_event::kNote << ", text: " << metadata::yaml_quoted(note) << "}\n";
}

void archive(const fs::path& experiment, metadata::ArchiveMode mode) {
  if (mode != metadata::ArchiveMode::off) archive::archive_after_recording(experiment, "er_kernel", std::cerr);
}

// Hands `recording` the events older than `before` in time order (every
// CPU's ring holds its own in order; across CPUs they are sorted here).
void handle_pending(std::vector<PerfEvent>& pending, uint64_t before, SystemRecording& recording) {
  std::stable_sort(pending.begin(), pending.end(),
                   [](const PerfEvent& a, const PerfEvent& b) { return time_of(a) < time_of(b); });
  const auto ready = std::find_if(pending.begin(), pending.end(),
                                  [before](const PerfEvent& e) { return time_of(e) >= before; });
  for (auto it = pending.begin(); it != ready; ++it) recording.handle(*it);
  pending.erase(pending.begin(), ready);
}

int record(const KernelOptions& options, const std::vector<std::string>& args) {
  CpuSampler sampler(options.interval_ns);
  const fs::path experiment =
      collect::create_experiment_directory(
          collect::choose_experiment_path(options.name.value_or("ktest.1.er"), options.directory))
          .lexically_normal();

  KernelSymbols kernel;
  kernel.read_running_kernel();
  std::vector<std::string> notes;
  notes.push_back("er_kernel: every CPU sampled every " + std::to_string(options.interval_ns / 1000) +
                  " us of wall time (cpu-clock); " + std::to_string(sampler.cpus()) + " CPUs");
  if (kernel.hidden()) {
    notes.push_back("kernel functions are not named: /proc/kallsyms hides their addresses from this user "
                    "(kernel.kptr_restrict)");
    std::cerr << "er_kernel: warning: " << notes.back() << "\n";
  }

  metadata::CollectionPlan plan;
  plan.plugins.push_back(clock_plugin(options.interval_ns));
  plan.runtime.sample_period_ns = 0;
  plan.runtime.archive = options.archive;
  plan.comments = options.comments;
  plan.follow = "all";

  struct sigaction on_signal {};
  on_signal.sa_sigaction = note_signal;
  on_signal.sa_flags = SA_SIGINFO;
  sigemptyset(&on_signal.sa_mask);
  for (const int s : {SIGINT, SIGTERM, SIGHUP}) sigaction(s, &on_signal, nullptr);
  // The command is waited for whatever er_kernel inherited (an ignored
  // SIGCHLD would leave nothing to wait for), and a command gone before its
  // start is a failed write, not a SIGPIPE.
  struct sigaction plain {};
  plain.sa_handler = SIG_DFL;
  sigaction(SIGCHLD, &plain, &g_command_sigchld);
  plain.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &plain, &g_command_sigpipe);

  const long long start_wall = metadata::wall_clock_ns();
  const uint64_t start = monotonic_ns();
  plan.origin_ns = static_cast<long long>(start);
  SystemRecording recording(experiment, plan, start, start_wall, kernel);
  int go_fd = -1;
  pid_t child = -1;
  if (!options.command.empty()) child = start_command(options.command, go_fd);
  if (child > 0) recording.set_command_process(static_cast<uint32_t>(child));
  sampler.enable();
  recording.read_running_processes();
  if (child > 0) {
    const char go = 1;
    if (write(go_fd, &go, 1) != 1) kill(child, SIGKILL);
    close(go_fd);
  } else if (!options.duration_s) {
    std::cerr << "er_kernel: recording every CPU into " << experiment.string() << " until interrupted (Ctrl-C)\n";
  }
  const uint64_t deadline =
      options.duration_s ? start + static_cast<uint64_t>(*options.duration_s * 1e9) : UINT64_MAX;

  std::vector<RawPerfRecord> raw;
  std::vector<PerfEvent> pending;
  const auto take = [&] {
    raw.clear();
    sampler.drain(raw);
    for (const RawPerfRecord& r : raw) {
      if (auto event = parse(r)) pending.push_back(std::move(*event));
      else if (r.bytes.size() >= 8 && reinterpret_cast<const uint16_t*>(r.bytes.data())[0] == 9)
        recording.count_unparsed();
    }
  };
  // The command's end wakes the loop at once (a pidfd is readable then).
  const int child_fd = child > 0 ? static_cast<int>(syscall(SYS_pidfd_open, child, 0)) : -1;
  int status = 0;
  bool child_done = child <= 0;
  // Waits for the command and forwards what er_kernel is sent (not what the
  // terminal sent both); true once it ended.
  const auto wait_command = [&](int options) {
    if (child_done) return true;
    if (g_signal != 0 && child > 0) {
      if (!g_signal_from_terminal) kill(child, g_signal);
      g_signal = 0;
    }
    const pid_t waited = waitpid(child, &status, options);
    if (waited == child || (waited < 0 && errno == ECHILD)) child_done = true;
    return child_done;
  };
  try {
    while (true) {
      sampler.wait(100, child_fd);
      // Every event older than a quarter second before this drain is in
      // the rings by now.
      const uint64_t now = monotonic_ns();
      take();
      handle_pending(pending, now > 250'000'000 ? now - 250'000'000 : 0, recording);
      if (child > 0 && wait_command(WNOHANG)) break;
      if (now >= deadline) break;
      if (g_signal != 0 && child <= 0) break;
    }
  } catch (const std::exception& e) {
    // Recording failed (a full disk): the command runs on and er_kernel
    // still exits with its status.
    sampler.disable();
    std::cerr << "er_kernel: recording stopped: " << e.what() << "; " << experiment.string() << " is incomplete\n";
    if (child <= 0) return 1;
    while (!wait_command(0)) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  sampler.disable();
  if (child_fd >= 0) close(child_fd);
  take();
  handle_pending(pending, UINT64_MAX, recording);
  if (child > 0 && !child_done) {
    std::cerr << "er_kernel: recording stopped after " << *options.duration_s << " s; waiting for "
              << options.command[0] << " to end\n";
    while (!wait_command(0)) {
    }
  }
  if (child > 0) recording.set_ending(static_cast<uint32_t>(child), ending_of(status));
  const RecordingTotals totals = recording.finish(monotonic_ns());

  if (totals.lost_records > 0)
    notes.push_back(std::to_string(totals.lost_records) +
                    " records were lost: the kernel found a CPU's buffer full (a lower rate, -p lo, loses fewer)");
  if (totals.unparsed_records > 0)
    notes.push_back(std::to_string(totals.unparsed_records) + " samples could not be read and were left out");
  metadata::ProcessFacts founder;
  founder.command = {"er_kernel"};
  founder.command.insert(founder.command.end(), args.begin(), args.end());
  founder.start_wall_ns = start_wall;
  founder.start_monotonic_ns = static_cast<long long>(start);
  founder.target_pid = child > 0 ? child : 0;
  metadata::CollectionPlan founder_plan = plan;
  founder_plan.plugins.clear();  // its processes hold the samples
  metadata::ProcessEnd end;
  if (child > 0) end = ending_of(status);
  else end.exited = true, end.end_wall_ns = metadata::wall_clock_ns();
  std::string header = metadata::header_text(founder_plan, founder, &end);
  header += "system_wide: {cpus_sampled: " + std::to_string(sampler.cpus()) +
            ", interval_ns: " + std::to_string(options.interval_ns) + ", samples: " + std::to_string(totals.samples) +
            ", idle_samples: " + std::to_string(totals.idle_samples) +
            ", lost_records: " + std::to_string(totals.lost_records) +
            ", processes: " + std::to_string(totals.processes) + "}\n";
  std::string error;
  if (!metadata::write_header_file(experiment.string(), header, error))
    throw std::runtime_error("cannot write the header of " + experiment.string() + ": " + error);
  write_log(experiment, notes);
  // The founder holds no samples of its own: its processes do.
  BlockFile(experiment / LUMEN_SAMPLES_FILE).finish();
  BlockFile(experiment / LUMEN_STACKS_FILE).finish();
  BlockFile(experiment / LUMEN_LOADOBJECTS_FILE).finish();
  archive(experiment, options.archive);
  std::cerr << "er_kernel: " << experiment.string() << ": " << totals.samples << " samples of " << sampler.cpus()
            << " CPUs, " << totals.processes << " processes"
            << (totals.lost_records ? ", " + std::to_string(totals.lost_records) + " records lost" : "") << "\n";
  if (child <= 0) return 0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

int run_er_kernel(const std::vector<std::string>& args) {
  KernelOptions options;
  try {
    options = parse_kernel_options(args);
  } catch (const KernelUsageError& e) {
    std::cerr << "er_kernel: " << e.what() << "\n" << kernel_usage();
    return 2;
  }
  if (options.help) {
    std::cout << kernel_usage();
    return 0;
  }
  try {
    return record(options, args);
  } catch (const collect::UsageError& e) {
    std::cerr << "er_kernel: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "er_kernel: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace lumen::kernel
