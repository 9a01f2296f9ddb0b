// A rank with MPI tracing on whose MPI calls never reach a traced function
// (mpi_pmpi_target calls only PMPI_ functions) records no call: every MPI
// view says so by rank, rather than showing 0 calls as if measured.
#include <gtest/gtest.h>

#include "mpi_expectations.h"
#include "mpi_jobs.h"

namespace lumen::test {
namespace {

using nlohmann::json;

class UntracedCalls : public testing::TestWithParam<std::string> {};

TEST_P(UntracedCalls, EveryMpiViewNamesTheRanksThatRecordedNoCall) {
  const Implementation mpi = implementation(GetParam());
  if (mpi.launcher.empty()) GTEST_SKIP() << GetParam() << " is not installed";
  JobSpec spec;
  spec.program = "mpi_pmpi_target";
  const Job job = run_job(mpi, spec);
  ASSERT_EQ(job.run.exit_code, 0) << job.run.err;
  for (int rank = 0; rank < 2; ++rank) ASSERT_FALSE(job.truth[rank].is_null()) << "rank " << rank << " did not finish";
  const std::string title =
      "MPI tracing was on and no MPI call was recorded (the calls bypassed the MPI functions traced, or the process "
      "made none)";
  for (const char* view : {"-mpi_stats", "-mpi_ranks", "-mpi_messages"}) {
    const json shown = er_print_json({view}, job.experiment);
    EXPECT_EQ(shown.at("summary").at("silent_processes").get<double>(), 2.0) << view << ": " << shown.dump();
    const auto rows = rows_by_name(table_titled(shown, title));
    EXPECT_EQ(rows.size(), 2u) << view << ": " << shown.dump();
    EXPECT_TRUE(rows.count("rank 0 (as launched)")) << view << ": " << shown.dump();
    EXPECT_TRUE(rows.count("rank 1 (as launched)")) << view << ": " << shown.dump();
  }
  const ProcessResult text = run_process({(bin_dir() / "er_print").string(), "-mpi_stats", job.experiment.string()});
  EXPECT_NE(text.out.find("no MPI call was recorded"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("rank 1 (as launched)"), std::string::npos) << text.out;
}

INSTANTIATE_TEST_SUITE_P(Implementations, UntracedCalls, testing::Values("openmpi", "mpich"));

}  // namespace
}  // namespace lumen::test
