// OpenMP tracing under GCC's libgomp: omp_target (two threads,
// OMP_WAIT_POLICY=active) measures its work and its waits in CPU time, and
// its imbalanced region's tasks in wall time; collect -p on plans the
// OpenMP plugin by itself, and er_print's ompwork, ompwait and -omp_preg
// must match that truth within what sampling (or, for traced times, the
// clock) promises.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

using nlohmann::json;

constexpr double kInterval = 0.01;  // -p on

struct ActiveWaitPolicy {
  ActiveWaitPolicy() { setenv("OMP_WAIT_POLICY", "active", 1); }
  ~ActiveWaitPolicy() { unsetenv("OMP_WAIT_POLICY"); }
};

double value(const std::map<std::string, json>& rows, const std::string& function, const std::string& metric) {
  return rows.count(function) ? rows.at(function).at(metric).get<double>() : 0.0;
}

std::map<std::string, json> function_rows(const std::filesystem::path& experiment) {
  return rows_by_name(er_print_json(
      {"-metrics", "e.totalcpu:i.totalcpu:e.ompwork:i.ompwork:e.ompwait:i.ompwait:e.omptwait:name", "-functions"},
      experiment));
}

class OmpTracing : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    ActiveWaitPolicy policy;
    dir_ = new TempDir();
    run_ = new Collection(collect(*dir_, {"-p", "on"}, LUMEN_OMP_TARGET));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete dir_;
  }
  static TempDir* dir_;
  static Collection* run_;
};
TempDir* OmpTracing::dir_ = nullptr;
Collection* OmpTracing::run_ = nullptr;

TEST_F(OmpTracing, PlannedByItselfWithClockProfiling) {
  ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(run_->experiment / "omptrace"));
  std::ifstream header(run_->experiment / "header.yaml");
  std::stringstream text;
  text << header.rdbuf();
  EXPECT_NE(text.str().find("omp:"), std::string::npos) << text.str();
}

TEST_F(OmpTracing, HeaderSaysRuntimeAndWaitPolicy) {
  const json header = er_print_json({"-header"}, run_->experiment);
  EXPECT_NE(header.dump().find("OpenMP: GCC libgomp, OMP_WAIT_POLICY=active"), std::string::npos) << header.dump();
}

TEST_F(OmpTracing, WorkAndWaitMatchTheProgramsOwnTimes) {
  ASSERT_FALSE(run_->truth.is_null());
  const json& truth = run_->truth;
  const auto rows = function_rows(run_->experiment);
  ASSERT_TRUE(rows.count("<Total>"));
  // Work and wait partition the sampled CPU time, in every row.
  for (const auto& [name, row] : rows)
    for (const std::string f : {"e.", "i."})
      EXPECT_NEAR(row.at(f + "ompwork").get<double>() + row.at(f + "ompwait").get<double>(),
                  row.at(f + "totalcpu").get<double>(), 1e-6)
          << name << " " << f;
  const double work = truth.at("work").get<double>(), wait = truth.at("wait").get<double>();
  EXPECT_NEAR(value(rows, "<Total>", "e.ompwork"), work, sampling_tolerance(work, kInterval));
  EXPECT_NEAR(value(rows, "<Total>", "e.ompwait"), wait, sampling_tolerance(wait, kInterval));
  // Each work function is work only, whichever thread ran it.
  for (const char* function : {"imbalanced_work", "serial_work", "barrier_work", "locked_work", "critical_work"}) {
    const double used = truth.at(function).get<double>();
    EXPECT_NEAR(value(rows, function, "i.ompwork"), used, sampling_tolerance(used, kInterval)) << function;
    EXPECT_EQ(value(rows, function, "i.ompwait"), 0.0) << function;
  }
  // The trace's own wall times of the waits it implies.
  EXPECT_GT(value(rows, "<OMP-implicit_barrier>", "e.omptwait"), 0.0);
  EXPECT_GT(value(rows, "<OMP-idle>", "e.omptwait"), 0.0);
}

TEST_F(OmpTracing, ParallelRegionsByCallSite) {
  const json view = er_print_json({"-omp_preg"}, run_->experiment);
  const std::string text = view.dump();
  ASSERT_EQ(view.at("tables").size(), 1u) << text;
  const auto rows = rows_by_name(view.at("tables")[0]);
  EXPECT_EQ(view.at("summary").at("regions").get<double>(), 4.0);
  // Four regions, one per function holding one.
  for (const char* site : {"imbalanced_region", "barrier_region", "lock_region", "critical_region"}) {
    ASSERT_TRUE(rows.count(site)) << site << " in " << text;
    EXPECT_EQ(rows.at(site).at("count").get<double>(), 1.0) << site;
    EXPECT_EQ(rows.at(site).at("team").get<double>(), 2.0) << site;
  }
  // Imbalance: the program's wall times of its two tasks, and the trace's,
  // are taken microseconds apart.
  const double imbalance = run_->truth.at("imbalance").get<double>();
  EXPECT_NEAR(rows.at("imbalanced_region").at("imbalance").get<double>(), imbalance, 0.002 + 0.02 * imbalance);
}

TEST(OmpTracingOff, OffFlagKeepsThePluginOut) {
  ActiveWaitPolicy policy;
  TempDir dir;
  const Collection run = collect(dir, {"-p", "on", "-omp", "off"}, LUMEN_OMP_TARGET);
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  EXPECT_FALSE(std::filesystem::exists(run.experiment / "omptrace"));
}

// gfortran's OpenMP reaches libgomp through the same GOMP_parallel: three
// regions at one call site in a module procedure, their imbalance as the
// program's wall clock (omp_get_wtime) saw it.
TEST(OmpTracingFortran, RegionsOfAFortranProgram) {
#ifndef LUMEN_OMP_FORTRAN_TARGET
  GTEST_SKIP() << "gfortran is not installed";
#else
  TempDir dir;
  const Collection run = collect(dir, {"-p", "on"}, LUMEN_OMP_FORTRAN_TARGET);
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  ASSERT_FALSE(run.truth.is_null());
  const json view = er_print_json({"-omp_preg"}, run.experiment);
  ASSERT_EQ(view.at("tables").size(), 1u) << view.dump();
  const auto rows = rows_by_name(view.at("tables")[0]);
  ASSERT_EQ(rows.size(), 1u) << view.dump();
  EXPECT_NE(rows.begin()->first.find("imbalanced_regions"), std::string::npos) << rows.begin()->first;
  const json& site = rows.begin()->second;
  EXPECT_EQ(site.at("count").get<double>(), run.truth.at("regions").get<double>());
  EXPECT_EQ(site.at("team").get<double>(), 2.0);
  const double imbalance = run.truth.at("imbalance").get<double>();
  EXPECT_NEAR(site.at("imbalance").get<double>(), imbalance, 0.003 + 0.02 * imbalance);
#endif
}

}  // namespace
}  // namespace lumen::test
