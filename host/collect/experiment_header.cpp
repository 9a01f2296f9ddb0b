#include "experiment_header.h"

#include <lumen/record_format.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <csignal>
#include <cstring>
#include <fstream>
#include <thread>

namespace lumen::collect {

namespace {

std::string host_name() {
  char name[256] = "";
  gethostname(name, sizeof name - 1);
  return name;
}

double cpu_mhz() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line;
  while (std::getline(cpuinfo, line))
    if (line.rfind("cpu MHz", 0) == 0) return std::stod(line.substr(line.find(':') + 1));
  return 0;
}

}  // namespace

void write_header(const std::filesystem::path& experiment, const ExperimentHeader& header, const TargetEnd* end) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "format" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "major"
      << YAML::Value << LUMEN_FORMAT_MAJOR << YAML::Key << "minor" << YAML::Value << LUMEN_FORMAT_MINOR
      << YAML::EndMap;
  out << YAML::Key << "collector_version" << YAML::Value << LUMEN_VERSION;
  out << YAML::Key << "command" << YAML::Value << YAML::Flow << header.command;
  out << YAML::Key << "host" << YAML::Value << host_name();
  out << YAML::Key << "cpus" << YAML::Value << std::thread::hardware_concurrency();
  out << YAML::Key << "clock_mhz" << YAML::Value << cpu_mhz();
  out << YAML::Key << "page_size" << YAML::Value << sysconf(_SC_PAGESIZE);
  out << YAML::Key << "start_wall_ns" << YAML::Value << header.start_wall_ns;
  out << YAML::Key << "start_monotonic_ns" << YAML::Value << header.start_monotonic_ns;
  out << YAML::Key << "target_pid" << YAML::Value << header.target_pid;
  out << YAML::Key << "comments" << YAML::Value << header.comments;
  out << YAML::Key << "profile" << YAML::Value << header.plan.profile_path;
  out << YAML::Key << "follow" << YAML::Value << header.plan.follow;
  out << YAML::Key << "lineage" << YAML::Value << "";
  const RuntimeSettings& r = header.plan.runtime;
  out << YAML::Key << "sample_period_ns" << YAML::Value << r.sample_period_ns;
  if (r.sample_signal != 0) out << YAML::Key << "sample_signal" << YAML::Value << signal_name(r.sample_signal);
  if (r.pause_signal != 0) {
    out << YAML::Key << "pause_signal" << YAML::Value << signal_name(r.pause_signal);
    out << YAML::Key << "start_paused" << YAML::Value << r.start_paused;
  }
  if (r.window_start_ns != 0 || r.window_end_ns != 0)
    out << YAML::Key << "window" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "start_ns"
        << YAML::Value << r.window_start_ns << YAML::Key << "end_ns" << YAML::Value << r.window_end_ns
        << YAML::EndMap;
  if (r.size_limit_bytes != 0) out << YAML::Key << "size_limit_bytes" << YAML::Value << r.size_limit_bytes;
  out << YAML::Key << "archive" << YAML::Value << archive_mode_name(r.archive);
  out << YAML::Key << "plugins" << YAML::Value << YAML::BeginMap;
  for (const PlannedPlugin& p : header.plan.plugins) {
    out << YAML::Key << p.name << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "version" << YAML::Value << p.version;
    out << YAML::Key << "data_file" << YAML::Value << p.data_file;
    // Where er_print finds the analysis half of a plugin that is not shipped.
    out << YAML::Key << "directory" << YAML::Value << std::filesystem::weakly_canonical(p.collector_path.parent_path()).string();
    out << YAML::Key << "options" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const auto& [key, value] : p.options) out << YAML::Key << key << YAML::Value << value;
    out << YAML::EndMap << YAML::EndMap;
  }
  out << YAML::EndMap;
  if (!header.plan.left_out.empty()) {
    out << YAML::Key << "left_out" << YAML::Value << YAML::BeginSeq;
    for (const LeftOut& l : header.plan.left_out)
      out << YAML::Flow << YAML::BeginMap << YAML::Key << "plugin" << YAML::Value << l.plugin << YAML::Key << "what"
          << YAML::Value << l.what << YAML::Key << "reason" << YAML::Value << l.reason << YAML::EndMap;
    out << YAML::EndSeq;
  }
  if (end != nullptr) {
    out << YAML::Key << "end_wall_ns" << YAML::Value << end->end_wall_ns;
    if (r.size_limit_bytes != 0) out << YAML::Key << "size_limit_reached" << YAML::Value << end->size_limit_reached;
    out << YAML::Key << "target_end" << YAML::Value << YAML::Flow << YAML::BeginMap;
    if (end->exited) {
      out << YAML::Key << "exit_code" << YAML::Value << end->exit_code;
    } else {
      out << YAML::Key << "signal" << YAML::Value << end->signal;
      out << YAML::Key << "signal_name" << YAML::Value << (sigabbrev_np(end->signal) ? sigabbrev_np(end->signal) : "?");
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  const auto path = experiment / "header.yaml";
  const auto temporary = experiment / "header.yaml.tmp";
  {
    std::ofstream file(temporary);
    file << out.c_str() << "\n";
    if (!file) throw std::runtime_error("cannot write " + temporary.string());
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace lumen::collect
