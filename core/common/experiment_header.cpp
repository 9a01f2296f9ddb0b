#include "experiment_header.h"

#include <fcntl.h>
#include <lumen/record_format.h>
#include <time.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "experiment_metadata.h"
#include "lumen_version.h"
#include "yaml_text.h"

namespace lumen::metadata {

namespace {

std::string host_name() {
  char name[256] = "";
  gethostname(name, sizeof name - 1);
  return name;
}

std::string cpu_mhz() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("cpu MHz", 0) == 0) {
      const std::string value = line.substr(line.find(':') + 1);
      const size_t start = value.find_first_not_of(' ');
      return start == std::string::npos ? "0" : value.substr(start);
    }
  return "0";
}

std::string signal_name(int signal) {
  if (signal >= SIGRTMIN && signal <= SIGRTMAX) return "SIGRTMIN+" + std::to_string(signal - SIGRTMIN);
  const char* abbrev = sigabbrev_np(signal);
  return abbrev ? std::string("SIG") + abbrev : std::to_string(signal);
}

// "key: value\n"
struct Writer {
  std::string text;
  void add(const char* key, const std::string& yaml) { text += std::string(key) + (yaml.empty() ? ":\n" : ": " + yaml + "\n"); }
  void add(const char* key, long long number) { add(key, std::to_string(number)); }
};

}  // namespace

long long wall_clock_ns() {
  timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<long long>(now.tv_sec) * 1000000000LL + now.tv_nsec;
}

std::string end_text(const ProcessEnd& end) {
  using namespace header;
  Writer w;
  w.add(kEndWallNs, end.end_wall_ns);
  if (end.size_limit_reached) w.add(kSizeLimitReached, *end.size_limit_reached ? "true" : "false");
  if (end.detached) {
    w.add(kDetached, "true");
  } else if (end.exit_seen) {
    w.add(kExitSeen, "{time_ns: " + std::to_string(end.end_wall_ns) + "}");
  } else if (end.exited) {
    w.add(kTargetEnd, "{exit_code: " + std::to_string(end.exit_code) + "}");
  } else {
    const char* abbrev = sigabbrev_np(end.signal);
    w.add(kTargetEnd, "{signal: " + std::to_string(end.signal) + ", signal_name: " + (abbrev ? abbrev : "\"?\"") + "}");
  }
  if (!end.cut_short.empty()) w.add(kCutShort, yaml_quoted(end.cut_short));
  return w.text;
}

std::string header_text(const CollectionPlan& plan, const ProcessFacts& facts, const ProcessEnd* end) {
  using namespace header;
  Writer w;
  w.add(kFormat, "{major: " + std::to_string(LUMEN_FORMAT_MAJOR) + ", minor: " + std::to_string(LUMEN_FORMAT_MINOR) + "}");
  w.add(kCollectorVersion, yaml_scalar(LUMEN_VERSION));
  w.add(kCommand, yaml_list(facts.command));
  w.add(kHost, yaml_scalar(host_name()));
  w.add(kCpus, static_cast<long long>(std::thread::hardware_concurrency()));
  w.add(kClockMhz, cpu_mhz());
  w.add(kPageSize, sysconf(_SC_PAGESIZE));
  w.add(kStartWallNs, facts.start_wall_ns);
  w.add(kStartMonotonicNs, facts.start_monotonic_ns);
  w.add(kTargetPid, facts.target_pid);
  if (facts.parent_pid != 0) w.add(kParentPid, facts.parent_pid);
  if (facts.attached) w.add(kAttached, "true");
  w.add(kComments, yaml_list(plan.comments));
  w.add(kProfile, yaml_scalar(plan.profile_path));
  w.add(kFollow, yaml_scalar(plan.follow));
  w.add(kLineage, yaml_quoted(facts.lineage));
  if (facts.rank >= 0) w.add(kRank, facts.rank);
  const RuntimeSettings& r = plan.runtime;
  w.add(kSamplePeriodNs, r.sample_period_ns);
  if (r.sample_signal != 0) w.add(kSampleSignal, signal_name(r.sample_signal));
  if (r.pause_signal != 0) {
    w.add(kPauseSignal, signal_name(r.pause_signal));
    w.add(kStartPaused, r.start_paused ? "true" : "false");
  }
  if (r.window_start_ns != 0 || r.window_end_ns != 0)
    w.add(kWindow, "{start_ns: " + std::to_string(r.window_start_ns) + ", end_ns: " + std::to_string(r.window_end_ns) + "}");
  if (r.size_limit_bytes != 0) w.add(kSizeLimitBytes, r.size_limit_bytes);
  w.add(kArchive, archive_mode_name(r.archive));
  w.add(kPlugins, plan.plugins.empty() ? "{}" : "");
  for (const PlannedPlugin& p : plan.plugins) {
    std::string options;
    for (const auto& [key, value] : p.options) options += (options.empty() ? "" : ", ") + yaml_scalar(key) + ": " + yaml_scalar(value);
    std::error_code ec;
    const std::filesystem::path directory = std::filesystem::weakly_canonical(p.collector_path.parent_path(), ec);
    w.text += "  " + yaml_scalar(p.name) + ":\n";
    w.text += "    version: " + yaml_scalar(p.version) + "\n";
    w.text += "    data_file: " + yaml_scalar(p.data_file) + "\n";
    // Where er_print finds the analysis half of a plugin that is not shipped.
    w.text += "    directory: " + yaml_scalar((ec ? p.collector_path.parent_path() : directory).string()) + "\n";
    w.text += "    options: {" + options + "}\n";
  }
  if (!plan.left_out.empty()) {
    w.add(kLeftOut, "");
    for (const LeftOut& l : plan.left_out)
      w.text += "  - {plugin: " + yaml_scalar(l.plugin) + ", what: " + yaml_scalar(l.what) + ", reason: " +
                yaml_quoted(l.reason) + "}\n";
  }
  if (end != nullptr) w.text += end_text(*end);
  return w.text;
}

bool write_header_file(const std::string& directory, const std::string& text, std::string& error) {
  const std::string path = directory + "/" + kHeaderFile;
  const std::string temporary = path + ".tmp";
  {
    std::ofstream file(temporary, std::ios::trunc);
    file << text;
    file.flush();
    if (!file) {
      error = "cannot write " + temporary;
      return false;
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    error = "cannot rename " + temporary + " to " + path + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

bool append_end(const std::string& directory, const ProcessEnd& end) {
  const std::string path = directory + "/" + kHeaderFile;
  std::ifstream in(path);
  if (!in) return false;
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (text.find("\n" + std::string(header::kTargetEnd) + ":") != std::string::npos) return false;
  const std::string lines = (text.empty() || text.back() == '\n' ? "" : "\n") + end_text(end);
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return false;
  const bool whole = write(fd, lines.data(), lines.size()) == static_cast<ssize_t>(lines.size());
  close(fd);
  return whole;
}

}  // namespace lumen::metadata
