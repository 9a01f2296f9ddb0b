// MPI jobs across hosts: two hosts made on this machine (tools/test-hosts.sh:
// network namespaces with their own addresses and host names, this file
// system shared), reached through each launcher's own agent (Open MPI's
// plm_rsh_agent, MPICH Hydra's -launcher-exec), 4 ranks, 2 a host. Both
// launch forms (collect wrapping the launcher; the launcher running collect
// once per rank) record one founder whose ranks' figures equal what each
// rank counted, each rank on the host it ran on.
#include <gtest/gtest.h>

#include "lumen_commands.h"
#include "mpi_expectations.h"
#include "mpi_jobs.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kHosts = LUMEN_TEST_HOSTS;  // tools/test-hosts.sh

class MpiAcrossHosts : public testing::TestWithParam<std::tuple<std::string, bool>> {
 protected:
  static void SetUpTestSuite() {
    const ProcessResult made = run_process({kHosts, "create", "2"});
    if (made.exit_code != 0) *unavailable_ = "the hosts could not be made here: " + made.err;
  }
  static void TearDownTestSuite() { run_process({kHosts, "remove"}); }
  static inline std::string* unavailable_ = new std::string;
};

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
  const Job job = run_job(mpi, spec);
  const std::string what = name + (per_rank ? ", collect per rank" : ", collect around the launcher");
  ASSERT_EQ(job.run.exit_code, 0) << what << "\n" << job.run.err;
  for (int rank = 0; rank < spec.ranks; ++rank)
    ASSERT_FALSE(job.truth[rank].is_null()) << what << ": rank " << rank << " wrote no truth";
  expect_per_function(job.experiment, job.truth, what);
  expect_per_rank(job.experiment, job.truth, what);
  expect_messages(job.experiment, job.truth, what);
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

INSTANTIATE_TEST_SUITE_P(Launchers, MpiAcrossHosts,
                         testing::Combine(testing::Values("openmpi", "mpich"), testing::Bool()),
                         [](const auto& info) {
                           return std::get<0>(info.param) + (std::get<1>(info.param) ? "_collect_per_rank"
                                                                                     : "_collect_around_launcher");
                         });

}  // namespace
}  // namespace lumen::test
