// OpenMP inside MPI ranks: `collect --profile mpi -p on -- mpirun -np 2`
// plans the OpenMP plugin by itself for the ranks (the program mpirun runs
// needs libgomp); each rank's region, its threads' work (which they timed
// themselves) and the user-mode stitching are in that rank's experiment.
#include <gtest/gtest.h>

#include "mpi_jobs.h"

namespace lumen::test {
namespace {

using nlohmann::json;

constexpr double kInterval = 0.01;  // -p on

double value(const std::map<std::string, json>& rows, const std::string& function, const std::string& metric) {
  return rows.count(function) ? rows.at(function).at(metric).get<double>() : 0.0;
}

class MpiOpenMp : public testing::TestWithParam<std::string> {};

TEST_P(MpiOpenMp, RegionsAndWorkOfEachRank) {
  const Implementation mpi = implementation(GetParam());
  if (mpi.launcher.empty()) GTEST_SKIP() << GetParam() << " is not installed";
  JobSpec spec;
  spec.program = "mpi_openmp_target";
  spec.truth_prefix = "omp";
  spec.collect_args = {"--profile", "mpi", "-p", "on"};
  const Job job = run_job(mpi, spec);
  ASSERT_EQ(job.run.exit_code, 0) << job.run.err;
  for (size_t rank = 0; rank < job.truth.size(); ++rank) {
    ASSERT_FALSE(job.truth[rank].is_null()) << "rank " << rank << " wrote no truth";
    const std::vector<std::string> select{"-rank_select", std::to_string(rank)};
    std::vector<std::string> args = select;
    args.push_back("-omp_preg");
    const json regions = er_print_json(args, job.experiment);
    ASSERT_EQ(regions.at("tables").size(), 1u) << regions.dump();
    EXPECT_EQ(regions.at("summary").at("regions").get<double>(), job.truth[rank].at("regions").get<double>())
        << "rank " << rank;
    // One construct, at its line in rank_region.
    const json& sites = regions.at("tables")[0].at("rows");
    ASSERT_EQ(sites.size(), 1u) << regions.dump();
    EXPECT_EQ(sites[0].at("name").get<std::string>().rfind("rank_region, line ", 0), 0u) << regions.dump();
    EXPECT_EQ(sites[0].at("values").at("team").get<double>(), job.truth[rank].at("threads").get<double>());
    // The rank's two threads' work is under rank_region in user mode, and
    // OpenMP work, as they measured it.
    args = select;
    args.insert(args.end(), {"-viewmode", "user", "-metrics", "i.totalcpu:i.ompwork:name", "-functions"});
    const auto rows = rows_by_name(er_print_json(args, job.experiment));
    const double work = job.truth[rank].at("work").get<double>();
    EXPECT_NEAR(value(rows, "rank_work", "i.ompwork"), work, sampling_tolerance(work, kInterval)) << "rank " << rank;
    EXPECT_GE(value(rows, "rank_region", "i.totalcpu"), work - sampling_tolerance(work, kInterval))
        << "rank " << rank;
  }
}

INSTANTIATE_TEST_SUITE_P(Implementations, MpiOpenMp, testing::Values("openmpi", "mpich"));

}  // namespace
}  // namespace lumen::test
