// Oracle's -M: `collect -M OPENMPI|MPICH|MPICH2|off` turns MPI tracing on
// with the collector built for that implementation, whatever collect can see
// of the program (here the job is started through sh -c, so neither the
// launcher nor the MPI program is on collect's command line), or turns it
// off; any other value is refused before the target starts.
#include <gtest/gtest.h>

#include <fstream>

#include "mpi_expectations.h"
#include "mpi_jobs.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

std::string file_text(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// sh -c 'exec LAUNCHER OPTIONS -np 2 TARGET DIR', as collect's target.
std::vector<std::string> hidden_job(const Implementation& mpi, const fs::path& dir) {
  std::string line = "exec " + mpi.launcher;
  for (const std::string& option : mpi.launcher_options) line += " " + option;
  line += " -np 2 " + mpi.target("mpi_exchange_target") + " " + dir.string();
  return {"/bin/sh", "-c", line};
}

class MpiVariantFlag : public testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(MpiVariantFlag, ForcesTheCollectorOfThatImplementation) {
  const auto& [name, flag_value] = GetParam();
  const Implementation mpi = implementation(name);
  if (mpi.launcher.empty()) GTEST_SKIP() << name << " is not installed";
  TempDir dir;
  std::vector<std::string> argv{(bin_dir() / "collect").string(), "-o", "run.er", "-d", dir.path().string(), "-M",
                                flag_value};
  const std::vector<std::string> job = hidden_job(mpi, dir.path());
  argv.insert(argv.end(), job.begin(), job.end());
  const ProcessResult run = run_process(argv);
  ASSERT_EQ(run.exit_code, 0) << run.err;

  const std::string plan = file_text(dir.path() / "run.er" / "collector.plan");
  const std::string variant = name == "mpich" ? "collector-mpich.so" : "collector.so";
  EXPECT_NE(plan.find("plugin mpi "), std::string::npos) << plan;
  EXPECT_NE(plan.find("/mpi/" + variant + "\n"), std::string::npos) << "-M " << flag_value << ":\n" << plan;
  std::vector<nlohmann::json> truth;
  for (int rank = 0; rank < 2; ++rank) {
    std::ifstream in(dir.path() / ("rank" + std::to_string(rank) + ".json"));
    ASSERT_TRUE(in) << "rank " << rank << " wrote no truth";
    truth.push_back(nlohmann::json::parse(in));
  }
  expect_per_function(dir.path() / "run.er", truth, "-M " + flag_value);
}

// Upper case as Oracle writes them, MPICH2 as MPICH's former name.
INSTANTIATE_TEST_SUITE_P(Implementations, MpiVariantFlag,
                         testing::Values(std::make_pair("openmpi", "OPENMPI"), std::make_pair("mpich", "MPICH2"),
                                         std::make_pair("mpich", "mpich")),
                         [](const auto& info) { return info.param.first + "_" + info.param.second; });

TEST(MpiVariantFlag, OffTurnsTracingOff) {
  const Implementation mpi = implementation("mpich");
  if (mpi.launcher.empty()) GTEST_SKIP() << "mpich is not installed";
  JobSpec spec;
  spec.collect_args = {"--profile", "mpi", "-M", "off", "-p", "on"};
  const Job job = run_job(mpi, spec);
  ASSERT_EQ(job.run.exit_code, 0) << job.run.err;
  EXPECT_EQ(file_text(job.experiment / "collector.plan").find("plugin mpi "), std::string::npos);
  for (int rank = 0; rank < 2; ++rank) {
    ASSERT_FALSE(job.truth[rank].is_null()) << "rank " << rank;
    EXPECT_FALSE(fs::exists(job.experiment / ("_rank" + std::to_string(rank) + ".er") / "mpitrace")) << rank;
  }
}

TEST(MpiVariantFlag, BadValueIsRefusedBeforeTheTargetStarts) {
  TempDir dir;
  const fs::path started = dir.path() / "started";
  const ProcessResult run = run_process({(bin_dir() / "collect").string(), "-o", "run.er", "-d", dir.path().string(),
                                         "-M", "lam", "/bin/sh", "-c", "touch " + started.string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("-M takes "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("not 'lam'"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(started)) << "the target ran";
  EXPECT_FALSE(fs::exists(dir.path() / "run.er")) << "an experiment was created";
}

}  // namespace
}  // namespace lumen::test
