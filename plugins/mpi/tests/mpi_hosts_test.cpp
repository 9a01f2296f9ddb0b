// MPI jobs across hosts: two hosts made on this machine (tools/test-hosts.sh:
// network namespaces with their own addresses and host names, this file
// system shared), the launcher on a third, reached through each launcher's own agent (Open MPI's
// plm_rsh_agent, MPICH Hydra's -launcher-exec), 4 ranks, 2 a host. Both
// launch forms (collect wrapping the launcher; the launcher running collect
// once per rank) record one founder whose ranks' figures equal what each
// rank counted, each rank on the host it ran on. The second host's
// monotonic clock runs an hour ahead of the first's (as hosts booted at
// other times): the timeline places every rank on one clock.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "lumen_commands.h"
#include "mpi_expectations.h"
#include "mpi_jobs.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kHosts = LUMEN_TEST_HOSTS;  // tools/test-hosts.sh

// Two hosts for a suite's tests, removed after them.
template <typename Param>
class OnTwoHosts : public testing::TestWithParam<Param> {
 protected:
  static void SetUpTestSuite() {
    const ProcessResult made = run_process({kHosts, "create", "2"});
    if (made.exit_code != 0) *unavailable_ = "the hosts could not be made here: " + made.err;
  }
  static void TearDownTestSuite() { run_process({kHosts, "remove"}); }
  static inline std::string* unavailable_ = new std::string;
};

// (implementation, collect run by the launcher once per rank)
class MpiAcrossHosts : public OnTwoHosts<std::tuple<std::string, bool>> {};
class MpiNodeLocal : public OnTwoHosts<std::string> {};

// The launcher's options that place 2 ranks on each host through its agent.
std::vector<std::string> across_hosts(const std::string& name) {
  if (name == "openmpi")
    return {"--allow-run-as-root", "--mca", "plm_rsh_agent", kHosts, "--mca", "oob_tcp_if_include",
            "10.77.0.0/24", "--mca", "btl_tcp_if_include", "10.77.0.0/24", "--mca", "btl", "tcp,self", "--host",
            "10.77.0.2:2,10.77.0.3:2"};
  return {"-localhost", "10.77.0.1", "-launcher", "ssh", "-launcher-exec", kHosts, "-hosts",
          "10.77.0.2:2,10.77.0.3:2"};
}

TEST_P(MpiAcrossHosts, EachRankOnItsHostWithItsOwnFigures) {
  const auto [name, per_rank] = GetParam();
  Implementation mpi = implementation(name);
  if (mpi.launcher.empty()) GTEST_SKIP() << name << " is not installed";
  if (!unavailable_->empty()) GTEST_SKIP() << *unavailable_;
  mpi.launcher_options = across_hosts(name);
  JobSpec spec;
  spec.ranks = 4;
  spec.collect_per_rank = per_rank;
  spec.prefix = {kHosts, "launch"};  // the launcher's own host
  const auto started = std::chrono::steady_clock::now();
  const Job job = run_job(mpi, spec);
  const double job_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const std::string what = name + (per_rank ? ", collect per rank" : ", collect around the launcher");
  ASSERT_EQ(job.run.exit_code, 0) << what << "\n" << job.run.err;
  for (int rank = 0; rank < spec.ranks; ++rank)
    ASSERT_FALSE(job.truth[rank].is_null()) << what << ": rank " << rank << " wrote no truth";
  expect_per_function(job.experiment, job.truth, what);
  expect_per_rank(job.experiment, job.truth, what);
  expect_messages(job.experiment, job.truth, what);
  expect_timeline(job.experiment, job.truth, what);
  // On one clock every call lies within the job's run (the second host's
  // an hour later otherwise).
  const json timeline = er_print_json({"-mpi_timeline"}, job.experiment);
  for (const json& row : table_titled(timeline, "MPI calls in time (peer -1: none, or several)").at("rows")) {
    const json& v = row.at("values");
    EXPECT_LE(v.at("start").get<double>() + v.at("duration").get<double>(), job_seconds) << what << ": " << row.dump();
  }
  // Ranks 0 and 1 ran on the first host, 2 and 3 on the second: each
  // rank's row names the host its process found itself on.
  const json ranks = table_titled(er_print_json({"-mpi_ranks"}, job.experiment), "MPI ranks");
  ASSERT_EQ(ranks.at("rows").size(), 4u) << what << ranks.dump();
  for (const json& row : ranks.at("rows")) {
    const std::string label = row.at("name");
    const bool first = label.rfind("rank 0 ", 0) == 0 || label.rfind("rank 1 ", 0) == 0;
    EXPECT_NE(label.find(first ? " on lumen-h1 " : " on lumen-h2 "), std::string::npos) << what << ": " << label;
  }
}

// Node-local directories: the launcher runs collect per rank with -d on
// each host's own scratch directory (the same path, a different directory
// on each host), so each host holds a founder of the job with its own
// ranks; er_print names the ranks one lacks, and er_cp gathers the other
// host's into it, after which every rank's figures are there.
TEST_P(MpiNodeLocal, FoundersOfEachHostAreGatheredByErCp) {
  const std::string name = GetParam();
  Implementation mpi = implementation(name);
  if (mpi.launcher.empty()) GTEST_SKIP() << name << " is not installed";
  if (!unavailable_->empty()) GTEST_SKIP() << *unavailable_;
  const TempDir truth_dir;
  std::vector<std::string> argv{kHosts, "launch", mpi.launcher};
  for (const std::string& option : across_hosts(name)) argv.push_back(option);
  argv.insert(argv.end(), {"-np", "4", (bin_dir() / "collect").string(), "-o", "run.er", "-d",
                           "/tmp/lumen-test-scratch", "--profile", "mpi", mpi.target("mpi_exchange_target"),
                           truth_dir.path().string()});
  const ProcessResult run = run_process(argv);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const fs::path first = "/tmp/lumen-test-hosts/lumen-h1/run.er", second = "/tmp/lumen-test-hosts/lumen-h2/run.er";
  ASSERT_TRUE(fs::exists(first / "_rank1.er")) << run.err;
  ASSERT_TRUE(fs::exists(second / "_rank2.er")) << run.err;
  EXPECT_FALSE(fs::exists(first / "_rank2.er"));
  const ProcessResult partial = run_process({(bin_dir() / "er_print").string(), "-mpi_ranks", first.string()});
  EXPECT_NE(partial.err.find("the job had 4 ranks, but rank 2, 3 recorded no experiment here"), std::string::npos)
      << partial.err;

  const ProcessResult gathered = run_process({(bin_dir() / "er_cp").string(), second.string(), first.string()});
  ASSERT_EQ(gathered.exit_code, 0) << gathered.err;
  EXPECT_NE(gathered.out.find("gathered 2 ranks of " + second.string() + " into " + first.string() +
                              ": _rank2.er _rank3.er"),
            std::string::npos)
      << gathered.out;
  std::vector<json> truth;
  for (int rank = 0; rank < 4; ++rank) {
    std::ifstream in(truth_dir.path() / ("rank" + std::to_string(rank) + ".json"));
    ASSERT_TRUE(in) << "rank " << rank << " wrote no truth";
    truth.push_back(json::parse(in));
  }
  const std::string what = name + ", node-local founders gathered";
  expect_per_function(first, truth, what);
  expect_per_rank(first, truth, what);
  expect_messages(first, truth, what);
  const ProcessResult complete = run_process({(bin_dir() / "er_print").string(), "-mpi_ranks", first.string()});
  EXPECT_EQ(complete.err.find("recorded no experiment here"), std::string::npos) << complete.err;
  // Gathered twice: refused, nothing copied.
  const ProcessResult again = run_process({(bin_dir() / "er_cp").string(), second.string(), first.string()});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("_rank2.er is in both"), std::string::npos) << again.err;
}

INSTANTIATE_TEST_SUITE_P(Launchers, MpiNodeLocal, testing::Values("openmpi", "mpich"));

INSTANTIATE_TEST_SUITE_P(Launchers, MpiAcrossHosts,
                         testing::Combine(testing::Values("openmpi", "mpich"), testing::Bool()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + (std::get<1>(info.param) ? "_collect_per_rank"
                                                                                     : "_collect_around_launcher");
                         });

}  // namespace
}  // namespace lumen::test
