// mpiwork and mpiwait: with clock profiling and MPI tracing together
// (`collect -p on --profile mpi`), each clock sample of a rank's thread is
// MPI wait when it fell inside one of that thread's MPI calls and MPI work
// otherwise. mpi_work_wait_target measures its main thread's CPU time inside
// and outside every MPI call; er_print's figures for each rank's main thread
// (thread 1: the lowest kernel id of the process) must match within what
// sampling promises, and work + wait must equal the sampled CPU time exactly,
// in every row.
#include <gtest/gtest.h>

#include "mpi_jobs.h"

namespace lumen::test {
namespace {

using nlohmann::json;

constexpr double kInterval = 0.01;  // -p on

std::map<std::string, json> function_rows(const std::filesystem::path& experiment,
                                          const std::vector<std::string>& selection) {
  std::vector<std::string> args = selection;
  args.insert(args.end(), {"-metrics", "e.totalcpu:i.totalcpu:e.mpiwork:i.mpiwork:e.mpiwait:i.mpiwait:name", "-functions"});
  return rows_by_name(er_print_json(args, experiment));
}

double value(const std::map<std::string, json>& rows, const std::string& function, const std::string& metric) {
  return rows.count(function) ? rows.at(function).at(metric).get<double>() : 0.0;
}

// Work and wait partition the sampled CPU time: in every row, each flavor.
void expect_partition(const std::map<std::string, json>& rows, const std::string& what) {
  for (const auto& [name, row] : rows)
    for (const char* flavor : {"e.", "i."}) {
      const std::string f = flavor;
      EXPECT_NEAR(row.at(f + "mpiwork").get<double>() + row.at(f + "mpiwait").get<double>(),
                  row.at(f + "totalcpu").get<double>(), 1e-6)
          << what << ": " << name << " " << f << "mpiwork + " << f << "mpiwait";
    }
}

class MpiWorkWait : public testing::TestWithParam<std::string> {};

TEST_P(MpiWorkWait, SamplesSplitByMpiCalls) {
  const Implementation mpi = implementation(GetParam());
  if (mpi.launcher.empty()) GTEST_SKIP() << GetParam() << " is not installed";
  JobSpec spec;
  spec.program = "mpi_work_wait_target";
  spec.truth_prefix = "work";
  spec.collect_args = {"-p", "on", "--profile", "mpi"};
  const Job job = run_job(mpi, spec);
  ASSERT_EQ(job.run.exit_code, 0) << job.run.err;

  const auto all = function_rows(job.experiment, {});
  ASSERT_TRUE(all.count("<Total>"));
  EXPECT_GT(value(all, "<Total>", "e.totalcpu"), 0.0) << "no clock samples";
  expect_partition(all, GetParam() + ", all ranks");

  for (size_t rank = 0; rank < job.truth.size(); ++rank) {
    ASSERT_FALSE(job.truth[rank].is_null()) << "rank " << rank << " wrote no truth";
    const json& truth = job.truth[rank];
    const std::string what = GetParam() + " rank " + std::to_string(rank);
    const auto rows = function_rows(job.experiment, {"-rank_select", std::to_string(rank), "-thread_select", "1"});
    ASSERT_TRUE(rows.count("<Total>")) << what;
    expect_partition(rows, what);
    const double outside = truth.at("outside_mpi").get<double>(), inside = truth.at("in_mpi").get<double>();
    EXPECT_NEAR(value(rows, "<Total>", "e.mpiwork"), outside, sampling_tolerance(outside, kInterval)) << what;
    EXPECT_NEAR(value(rows, "<Total>", "e.mpiwait"), inside, sampling_tolerance(inside, kInterval)) << what;
    // compute never calls MPI: all its time is work. The receive it waited
    // in is wait, on wait_for_partner's stack.
    const double computed = truth.at("compute").get<double>(), received = truth.at("recv").get<double>();
    EXPECT_EQ(value(rows, "compute", "i.mpiwait"), 0.0) << what;
    EXPECT_NEAR(value(rows, "compute", "i.mpiwork"), computed, sampling_tolerance(computed, kInterval)) << what;
    // Open MPI's progress engine runs in components it dlopens: these
    // samples reach wait_for_partner only if the unwinder knows them.
    EXPECT_NEAR(value(rows, "wait_for_partner", "i.mpiwait"), received, sampling_tolerance(received, kInterval)) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(Implementations, MpiWorkWait, testing::Values("openmpi", "mpich"));

}  // namespace
}  // namespace lumen::test
