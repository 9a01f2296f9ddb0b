#include "job_founder.h"

#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "command_line.h"
#include "experiment_directory.h"
#include "experiment_header.h"
#include "experiment_metadata.h"
#include "yaml_text.h"

namespace lumen::collect {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> variable(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::optional<long> number(const char* name) {
  const auto text = variable(name);
  if (!text) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text->c_str(), &end, 10);
  if (errno != 0 || end == text->c_str() || *end != '\0' || value < 0) return std::nullopt;
  return value;
}

std::string this_host() {
  char name[256] = "";
  gethostname(name, sizeof name - 1);
  return name;
}

// The --control-port argument of Hydra's proxy `pid` ("" when it is not one).
std::string hydra_control_port(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  const std::string line((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> args;
  for (size_t at = 0; at < line.size();) {
    const size_t end = line.find('\0', at);
    args.push_back(line.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  if (args.empty() || fs::path(args[0]).filename() != "hydra_pmi_proxy") return "";
  for (size_t i = 0; i + 1 < args.size(); ++i)
    if (args[i] == "--control-port") return args[i + 1];
  return "";
}

// A founder being made has no header for a moment: the rank that made the
// directory writes it next (atomically). Waits that long for it.
constexpr auto kHeaderWait = std::chrono::seconds(10);

// The job key a founder's header names; "" when it is no job's founder.
std::string job_key_of(const fs::path& founder) {
  const fs::path header = founder / metadata::kHeaderFile;
  const auto until = std::chrono::steady_clock::now() + kHeaderWait;
  std::error_code ec;
  const auto being_made = [&] {
    // Empty, or holding the header being written (header.yaml.tmp until
    // it is renamed): anything else is an experiment.
    for (const fs::directory_entry& entry : fs::directory_iterator(founder, ec))
      if (entry.path().filename() != std::string(metadata::kHeaderFile) + ".tmp") return false;
    return !ec;
  };
  const auto has_header = [&] { return fs::exists(fs::symlink_status(header, ec)); };
  while (!has_header()) {
    // Something else came in: the header came first, if it is a founder.
    if (!being_made()) {
      if (has_header()) break;
      return "";
    }
    if (std::chrono::steady_clock::now() > until) return "";
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  try {
    const YAML::Node job = YAML::LoadFile(header.string())["job"];
    return job && job.IsMap() ? job["key"].as<std::string>("") : "";
  } catch (const YAML::Exception&) {
    return "";
  }
}

}  // namespace

std::optional<LauncherRank> launcher_rank() {
  LauncherRank r;
  if (const auto rank = number("OMPI_COMM_WORLD_RANK")) {
    r.rank = *rank;
    r.size = number("OMPI_COMM_WORLD_SIZE").value_or(0);
    r.launcher = "Open MPI";
    r.job_key = "pmix:" + variable("PMIX_NAMESPACE").value_or(variable("OMPI_MCA_ess_base_jobid").value_or("?"));
  } else if (const auto rank = number("SLURM_PROCID"); rank && variable("SLURM_STEP_ID") && variable("SLURM_JOB_ID")) {
    // srun's tasks (a batch script itself has no step): the job's step.
    r.rank = *rank;
    r.size = number("SLURM_STEP_NUM_TASKS").value_or(number("SLURM_NTASKS").value_or(0));
    r.launcher = "Slurm";
    r.job_key = "slurm:" + *variable("SLURM_JOB_ID") + "." + *variable("SLURM_STEP_ID");
  } else if (const auto rank = number("PMIX_RANK"); rank && variable("PMIX_NAMESPACE")) {
    r.rank = *rank;
    r.size = number("PMIX_SIZE").value_or(0);
    r.launcher = "PMIx";
    r.job_key = "pmix:" + *variable("PMIX_NAMESPACE");
  } else if (const auto rank = number("PMI_RANK"); rank && variable("PMI_SIZE")) {
    // MPICH's Hydra names no job in the ranks' environment; its proxy on
    // each host is started with the launcher's control port, the same for
    // the whole job. Without it, the ranks on one host share their proxy.
    r.rank = *rank;
    r.size = number("PMI_SIZE").value_or(0);
    r.launcher = "MPICH (Hydra)";
    const std::string port = hydra_control_port(getppid());
    r.job_key = "hydra:" + (port.empty() ? this_host() + ":" + std::to_string(getppid()) : port) + ":" +
                std::to_string(r.size);
  } else {
    return std::nullopt;
  }
  return r;
}

fs::path job_founder(const fs::path& wanted, const LauncherRank& rank, const std::string& founder_header) {
  std::string job = "job: {launcher: " + metadata::yaml_scalar(rank.launcher) +
                    ", key: " + metadata::yaml_scalar(rank.job_key) + ", ranks: " + std::to_string(rank.size) + "}\n";
  for (fs::path candidate = wanted;;) {
    if (mkdir(candidate.c_str(), 0755) == 0) {
      std::string error;
      if (!metadata::write_header_file(candidate.string(), founder_header + job, error)) throw UsageError(error);
      return fs::absolute(candidate);
    }
    if (errno != EEXIST) throw UsageError("cannot create '" + candidate.string() + "': " + std::strerror(errno));
    if (job_key_of(candidate) == rank.job_key) return fs::absolute(candidate);
    const fs::path next = next_numbered(candidate).value_or(candidate);
    if (next == candidate)
      throw UsageError("experiment '" + candidate.string() + "' exists and is not the founder of this job (" +
                       rank.launcher + " " + rank.job_key + "); it is never overwritten (choose another -o name)");
    candidate = next;
  }
}

fs::path rank_experiment(const fs::path& founder, const LauncherRank& rank) {
  const fs::path path = founder / ("_rank" + std::to_string(rank.rank) + ".er");
  if (mkdir(path.c_str(), 0755) != 0)
    throw UsageError(errno == EEXIST ? "rank " + std::to_string(rank.rank) + " of this job is recorded already in " +
                                           founder.string()
                                     : "cannot create '" + path.string() + "': " + std::strerror(errno));
  return path;
}

}  // namespace lumen::collect
