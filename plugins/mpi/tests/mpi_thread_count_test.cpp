// An MPI job's experiments (the founder and one per rank, MPI calls traced
// beside clock profiling, so the MPI Work/Wait split applies too) read the
// same, byte for byte, whether one thread decodes each data file in one
// pass or several decode it in parts.
#include <gtest/gtest.h>

#include "mpi_jobs.h"
#include "thread_count_views.h"

namespace lumen::test {
namespace {

class MpiThreadCount : public testing::TestWithParam<std::string> {};

TEST_P(MpiThreadCount, ViewsReadTheSameOnAnyNumberOfThreads) {
  const Implementation mpi = implementation(GetParam());
  if (mpi.launcher.empty()) GTEST_SKIP() << GetParam() << " is not installed";
  JobSpec spec;
  spec.collect_args = {"--profile", "mpi", "-p", "hi"};
  const Job job = run_job(mpi, spec);
  ASSERT_EQ(job.run.exit_code, 0) << job.run.err;
  expect_same_on_any_threads(job.experiment, {"-metrics", "e.mpitime:e.mpisend:e.mpibytesrecv:e.mpiwork:e.mpiwait:name",
                                              "-functions", "-callers-callees", "-calltree", "-mpi_stats",
                                              "-thread_list"});
}

INSTANTIATE_TEST_SUITE_P(Implementations, MpiThreadCount, testing::Values("openmpi", "mpich"));

}  // namespace
}  // namespace lumen::test
