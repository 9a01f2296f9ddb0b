// Starting the target with the collector preloaded, and waiting for it
// without changing anything it sees: stdin, stdout, stderr, environment
// (beyond the preload and the experiment's address) and exit status.
#pragma once

#include <string>
#include <vector>

namespace lumen::collect {

// Finds the program as execvp would; empty when it cannot be run.
std::string resolve_target(const std::string& program);

// Why the collector cannot be preloaded into `program` (a statically linked
// executable has no dynamic loader to do it); empty when it can.
std::string preload_obstacle(const std::string& program);

struct LaunchResult {
  int pid = 0;
  int wait_status = 0;
};

// `preload`: libraries to put before any LD_PRELOAD the user already has.
// `job_experiment` (absolute; empty for none): the target may launch ranks
// on other hosts, whose daemons (started over ssh, not collected) forward
// the launcher's environment to them: LUMEN_MPI_JOB names the experiment,
// and Open MPI is asked to forward it and LD_PRELOAD (mca_base_env_list;
// MPICH's Hydra forwards the whole environment).
LaunchResult run_target(const std::string& program_path, const std::vector<std::string>& argv,
                        const std::vector<std::string>& preload, const std::string& experiment,
                        const std::string& job_experiment, void (*on_started)(int pid, void* context),
                        void* context);

// Ends collect the way the target ended: same exit code, or same signal.
[[noreturn]] void exit_like(int wait_status);

}  // namespace lumen::collect
