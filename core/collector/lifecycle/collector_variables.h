// The collector's environment variables, which carry collection from collect
// (and from an image to the next one it execs): LUMEN_EXPERIMENT (the
// founder's directory), LUMEN_LINEAGE (empty for the founder) and
// LUMEN_TARGET_PID (the pid that should collect; "any" for the next image
// that starts, such as a spawned child). The runtime takes them out of the
// program's environment when it loads, so the program sees its environment
// as without collect (beside the preload), and puts them back only into
// the environment of an image it starts (descendants.cpp).
//
// A rank started on another host by a launcher's daemon, which ssh started
// out of collect's reach, has none of them; it has what the launcher
// forwards from its own environment: the preload, LUMEN_MPI_JOB (the
// founder's directory, set by collect for a target that traces MPI and
// left in the environment for the launcher to forward; a rank takes it out
// of its own) and the launcher's rank variable. It records into the founder as `_rankN`; where the
// founder's directory is node-local, into one it founds on its host
// (job_founder_here.h).
#pragma once

#include <string>

namespace lumen::collector {

struct CollectorVariables {
  bool present = false;  // collect (or the image before) set them
  std::string experiment;
  std::string lineage;
  std::string target_pid;
  std::string preload;  // LD_PRELOAD as the runtime found it
};

// The variables a parallel job's launcher (mpirun, mpiexec, a PMI or PMIx
// server) gives each rank it starts.
inline constexpr const char* kRankVariables[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"};

// Not signal-safe. The rank a launcher gave this process (or its
// ancestor), from its environment; empty when none did.
std::string rank_in_environment();

// Not signal-safe. Reads the variables and removes them from `environ`;
// run once, from the runtime's constructor.
void take_collector_variables();

// This process's variables; target_pid is updated when collection starts
// (whatever it starts next is told apart by its pid).
CollectorVariables& collector_variables();

}  // namespace lumen::collector
