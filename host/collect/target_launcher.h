// Starting the target with the collector preloaded, and waiting for it
// without changing anything it sees: stdin, stdout, stderr, environment
// (beyond the preload and the experiment's address) and exit status.
#pragma once

#include <string>
#include <utility>
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

// The variables that carry collection to ranks a launcher starts on other
// hosts, through daemons (started over ssh) that collect does not reach:
// the launcher forwards them from its own environment (Open MPI those
// named in mca_base_env_list, which run_target adds them to with
// LD_PRELOAD; MPICH's Hydra all).
using ForwardedVariables = std::vector<std::pair<std::string, std::string>>;

// `preload`: libraries to put before any LD_PRELOAD the user already has.
LaunchResult run_target(const std::string& program_path, const std::vector<std::string>& argv,
                        const std::vector<std::string>& preload, const std::string& experiment,
                        const ForwardedVariables& to_remote_ranks, void (*on_started)(int pid, void* context),
                        void* context);

// Ends collect the way the target ended: same exit code, or same signal.
[[noreturn]] void exit_like(int wait_status);

}  // namespace lumen::collect
