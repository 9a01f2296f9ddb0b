// MPI jobs as the tests run them: an installed implementation's launcher
// under the real collect, with test targets built by that implementation's
// mpicc (tests/CMakeLists.txt defines where they are).
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lumen_commands.h"

namespace lumen::test {

struct Implementation {
  std::string name;
  std::string launcher;  // empty: not installed
  std::vector<std::string> launcher_options;
  // The test target `program` ("mpi_exchange_target") built with this
  // implementation.
  std::string target(const std::string& program) const;
};

// "openmpi" or "mpich"; its launcher is empty when it is not installed.
Implementation implementation(const std::string& name);

struct Job {
  std::unique_ptr<TempDir> dir;
  std::filesystem::path experiment;
  ProcessResult run;
  std::vector<nlohmann::json> truth;  // by rank; null where a rank wrote none
};

struct JobSpec {
  std::string program = "mpi_exchange_target";
  std::string truth_prefix = "rank";  // each rank writes DIR/<prefix><rank>.json
  int ranks = 2;
  std::vector<std::string> collect_args{"--profile", "mpi"};
  std::map<std::string, std::string> env;
  std::vector<std::string> target_args;  // after DIR
  // The launcher runs collect once per rank, the form for a launcher that
  // cannot be wrapped (srun): LAUNCHER -np N collect -o run.er -d DIR
  // <collect_args> TARGET DIR <target_args>.
  bool collect_per_rank = false;
  // Run before the whole command (a wrapper running it elsewhere).
  std::vector<std::string> prefix;
};

// collect -o run.er -d DIR <collect_args> -- LAUNCHER -np N TARGET DIR <target_args>
Job run_job(const Implementation& mpi, const JobSpec& spec);

}  // namespace lumen::test
