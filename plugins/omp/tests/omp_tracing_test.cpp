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
      {"-metrics", "e.user:i.user:e.ompwork:i.ompwork:e.ompwait:i.ompwait:e.omptwait:name", "-functions"},
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
                  row.at(f + "user").get<double>(), 1e-6)
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

std::map<std::string, json> rows_in_mode(const std::filesystem::path& experiment, const std::string& mode,
                                         const std::string& view = "-functions") {
  return rows_by_name(er_print_json(
      {"-viewmode", mode, "-metrics", "e.user:i.user:e.ompwork:e.ompwait:e.omptwait:name", view}, experiment));
}

bool any_row_contains(const std::map<std::string, json>& rows, const std::string& part) {
  for (const auto& [name, row] : rows)
    if (name.find(part) != std::string::npos) return true;
  return false;
}

// User mode (the default): each region's body runs inside the function
// holding it on every thread, libgomp is gone, and the time the runtime
// waits is Oracle's artificial functions, each as long as the program
// measured its waits.
TEST_F(OmpTracing, UserModeShowsTheProgramAsWritten) {
  const json& truth = run_->truth;
  const auto rows = rows_in_mode(run_->experiment, "user");
  const auto objects = rows_in_mode(run_->experiment, "user", "-objects");
  EXPECT_FALSE(any_row_contains(rows, "._omp_fn.")) << "an outlined body in user mode";
  EXPECT_FALSE(any_row_contains(objects, "libgomp")) << "libgomp's frames in user mode";
  // The imbalanced region holds both threads' work (0.1 s + 0.4 s).
  const double imbalanced = truth.at("imbalanced_work").get<double>();
  EXPECT_GE(value(rows, "imbalanced_region", "i.user"), imbalanced - sampling_tolerance(imbalanced, kInterval));
  // Everything but the worker's idle time (and its start) is under main.
  const double total = value(rows, "<Total>", "i.user");
  EXPECT_NEAR(value(rows, "main", "i.user") + value(rows, "<OMP-idle>", "i.user"), total, 3 * kInterval);
  const std::pair<const char*, const char*> waits[] = {{"<OMP-implicit_barrier>", "region_end_wait"},
                                                       {"<OMP-explicit_barrier>", "explicit_barrier_wait"},
                                                       {"<OMP-lock_wait>", "lock_wait"},
                                                       {"<OMP-critical_section_wait>", "critical_wait"},
                                                       {"<OMP-idle>", "worker_outside_regions"}};
  for (const auto& [function, key] : waits) {
    const double waited = truth.at(key).get<double>();
    // The worker's own short waits at a region's end add a few samples.
    EXPECT_NEAR(value(rows, function, "e.user"), waited, sampling_tolerance(waited, kInterval) + 2 * kInterval)
        << function;
    EXPECT_EQ(value(rows, function, "e.ompwork"), 0.0) << function << " is wait only";
  }
}

TEST_F(OmpTracing, ExpertModeShowsTheOutlinedBodiesUnderTheirFunctions) {
  const auto rows = rows_in_mode(run_->experiment, "expert");
  const auto objects = rows_in_mode(run_->experiment, "expert", "-objects");
  EXPECT_FALSE(any_row_contains(objects, "libgomp"));
  const double imbalanced = run_->truth.at("imbalanced_work").get<double>();
  ASSERT_TRUE(rows.count("imbalanced_region._omp_fn.0"));
  EXPECT_NEAR(value(rows, "imbalanced_region._omp_fn.0", "i.user"), imbalanced,
              sampling_tolerance(imbalanced, kInterval));
  // Its one caller, on both threads, is the function holding the region.
  const json single = er_print_json({"-viewmode", "expert", "-metrics", "i.user:name", "-csingle",
                                     "imbalanced_region._omp_fn.0"}, run_->experiment);
  const json& callers = single.at("rows").at(0).at("callers");
  ASSERT_EQ(callers.size(), 1u) << single.dump();
  EXPECT_EQ(callers.at(0).at("name"), "imbalanced_region");
}

TEST_F(OmpTracing, MachineModeShowsLibgompAndEveryModeTheSameTotals) {
  const auto machine = rows_in_mode(run_->experiment, "machine");
  const auto objects = rows_in_mode(run_->experiment, "machine", "-objects");
  EXPECT_TRUE(any_row_contains(objects, "libgomp.so")) << "libgomp's frames in machine mode";
  EXPECT_TRUE(any_row_contains(machine, "._omp_fn."));
  EXPECT_EQ(value(machine, "<OMP-implicit_barrier>", "e.user"), 0.0) << "no stitching in machine mode";
  const auto user = rows_in_mode(run_->experiment, "user");
  const auto expert = rows_in_mode(run_->experiment, "expert");
  for (const char* metric : {"e.user", "e.ompwork", "e.ompwait", "e.omptwait"}) {
    EXPECT_EQ(value(user, "<Total>", metric), value(machine, "<Total>", metric)) << metric;
    EXPECT_EQ(value(expert, "<Total>", metric), value(machine, "<Total>", metric)) << metric;
  }
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
  // User mode: both threads' spinning (sampled CPU time; the program's
  // truth is wall time) is inside the subroutine holding the region;
  // machine mode shows the outlined body and libgomp instead.
  const auto find = [](const std::map<std::string, json>& rows, const std::string& part) {
    for (const auto& [name, row] : rows)
      if (name.find(part) != std::string::npos && name.find("._omp_fn.") == std::string::npos)
        return row.at("i.user").get<double>();
    return 0.0;
  };
  const auto user = rows_in_mode(run.experiment, "user");
  const auto machine = rows_in_mode(run.experiment, "machine");
  EXPECT_FALSE(any_row_contains(user, "._omp_fn."));
  const double spin = find(user, "spin_for");
  EXPECT_GT(spin, 0.0);
  EXPECT_GE(find(user, "imbalanced_regions") + 1e-9, spin);
  EXPECT_TRUE(any_row_contains(machine, "._omp_fn."));
  EXPECT_TRUE(any_row_contains(rows_in_mode(run.experiment, "machine", "-objects"), "libgomp.so"));
  EXPECT_EQ(value(user, "<Total>", "e.user"), value(machine, "<Total>", "e.user"));
#endif
}

}  // namespace
}  // namespace lumen::test
