// A collect run by an MPI or batch launcher once per rank
// (`mpirun -np 4 collect -o job.er app`, `srun collect app`): the ranks of
// one job record into one founder experiment, each its own `_rankN.er`.
// The founder holds no process of its own: its header names the job (the
// launcher, the job's key and its ranks), which is how a rank finds that a
// founder of that name is its job's and not an older experiment.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace lumen::collect {

struct LauncherRank {
  long rank = 0;
  long size = 0;          // the job's ranks; 0: not said
  std::string launcher;   // "Open MPI", "MPICH (Hydra)", "Slurm", "PMIx"
  std::string job_key;    // the same for every rank of the job
};

// The rank this process was started as, from the launcher's environment;
// nullopt when no launcher started it.
std::optional<LauncherRank> launcher_rank();

// The founder of the rank's job: created with the header `founder_header`
// (to which the job is added) where it does not exist yet, or joined where
// another rank of the same job created it. `wanted` is the experiment path
// collect would choose (a numbered name moves on past other experiments;
// an explicit one that is not this job's is refused). Throws UsageError.
std::filesystem::path job_founder(const std::filesystem::path& wanted, const LauncherRank& rank,
                                  const std::string& founder_header);

// The rank's own experiment inside the founder (created). Throws UsageError
// when the job's rank recorded there already.
std::filesystem::path rank_experiment(const std::filesystem::path& founder, const LauncherRank& rank);

}  // namespace lumen::collect
