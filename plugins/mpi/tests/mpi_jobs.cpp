#include "mpi_jobs.h"

#include <fstream>

namespace lumen::test {

namespace fs = std::filesystem;

std::string Implementation::target(const std::string& program) const {
  return (fs::path(LUMEN_MPI_TARGET_DIR) / (program + "_" + name)).string();
}

Implementation implementation(const std::string& name) {
#ifdef LUMEN_MPIRUN_openmpi
  // As root Open MPI refuses to run unless told; 4 ranks on 2 cores need
  // oversubscription.
  if (name == "openmpi") return {name, LUMEN_MPIRUN_openmpi, {"--allow-run-as-root", "--oversubscribe"}};
#endif
#ifdef LUMEN_MPIRUN_mpich
  if (name == "mpich") return {name, LUMEN_MPIRUN_mpich, {}};
#endif
  return {name, "", {}};
}

Job run_job(const Implementation& mpi, const JobSpec& spec) {
  Job job;
  job.dir = std::make_unique<TempDir>();
  job.experiment = job.dir->path() / "run.er";
  std::vector<std::string> collect{(bin_dir() / "collect").string(), "-o", "run.er", "-d", job.dir->path().string()};
  collect.insert(collect.end(), spec.collect_args.begin(), spec.collect_args.end());
  std::vector<std::string> launch{mpi.launcher};
  launch.insert(launch.end(), mpi.launcher_options.begin(), mpi.launcher_options.end());
  launch.insert(launch.end(), {"-np", std::to_string(spec.ranks)});
  std::vector<std::string> argv = spec.collect_per_rank ? launch : collect;
  if (!spec.collect_per_rank) argv.push_back("--");
  argv.insert(argv.end(), spec.collect_per_rank ? collect.begin() : launch.begin(),
              spec.collect_per_rank ? collect.end() : launch.end());
  argv.insert(argv.end(), {mpi.target(spec.program), job.dir->path().string()});
  argv.insert(argv.begin(), spec.prefix.begin(), spec.prefix.end());
  argv.insert(argv.end(), spec.target_args.begin(), spec.target_args.end());
  job.run = run_process(argv, spec.env);
  for (int rank = 0; rank < spec.ranks; ++rank) {
    std::ifstream in(job.dir->path() / (spec.truth_prefix + std::to_string(rank) + ".json"));
    job.truth.push_back(in ? nlohmann::json::parse(in) : nlohmann::json());
  }
  return job;
}

}  // namespace lumen::test
