// Clock profiling end to end: real targets under the real collector, their
// self-measured CPU time compared with what er_print reports.
#include <gtest/gtest.h>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

void expect_inclusive_matches_truth(const Collection& c, double interval) {
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.user:i.user:name", "-functions"}, c.experiment));
  double truth_sum = 0;
  for (const auto& [name, seconds] : c.truth.at("functions").items()) {
    const double truth = seconds.get<double>();
    truth_sum += truth;
    ASSERT_TRUE(rows.count(name)) << "no row for " << name;
    EXPECT_NEAR(rows.at(name).at("i.user").get<double>(), truth, sampling_tolerance(truth, interval)) << name;
  }
  const double total = rows.at("<Total>").at("i.user").get<double>();
  EXPECT_NEAR(total, truth_sum, sampling_tolerance(truth_sum, interval) + 0.05);
}

TEST(ClockProfiling, EveryThreadsCpuTimeMatchesItsOwnMeasurement) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "on"}, "threads_target");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, "threads_target done\n");
  ASSERT_EQ(c.truth.at("functions").size(), 4u);
  expect_inclusive_matches_truth(c, 0.010);
}

TEST(ClockProfiling, HighRateCreditsTimerOverruns) {
  // At 1 ms a CPU-time timer expires only on the 250 Hz tick; without the
  // overruns credited the total would be about a quarter of the truth.
  TempDir dir;
  const Collection c = collect(dir, {"-p", "hi"}, "threads_target");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  expect_inclusive_matches_truth(c, 0.001);
}

TEST(ClockProfiling, ExplicitIntervalInMilliseconds) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "5"}, "threads_target");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto header = er_print_json({"-header"}, c.experiment);
  EXPECT_NE(header.dump().find("interval=5000000"), std::string::npos) << header.dump();
  expect_inclusive_matches_truth(c, 0.005);
}

TEST(ClockProfiling, LibraryLoadedWithDlopenIsResolvedAndAttributed) {
  TempDir dir;
  const Collection c = collect(dir, {}, "dlopen_target");
  // Exit 4 would mean dlopen did not find the library through the
  // program's RUNPATH, i.e. the collector changed how dlopen searches.
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  expect_inclusive_matches_truth(c, 0.010);
  const auto view = er_print_json({"-metrics", "e.user:name", "-functions"}, c.experiment);
  bool found = false;
  for (const auto& row : view.at("rows"))
    if (row.at("name") == "burn_in_library") {
      EXPECT_EQ(row.at("load_object"), "libburn_library.so");
      found = true;
    }
  EXPECT_TRUE(found);
  const auto objects = rows_by_name(er_print_json({"-metrics", "i.user:name", "-objects"}, c.experiment));
  ASSERT_TRUE(objects.count("libburn_library.so"));
  EXPECT_NEAR(objects.at("libburn_library.so").at("i.user").get<double>(),
              c.truth.at("functions").at("burn_in_library").get<double>(), sampling_tolerance(0.6, 0.01));
}

// The vDSO has no file: the experiment keeps its image, so the time a
// program spends reading the clock has the vDSO's own function names.
TEST(ClockProfiling, TimeInTheVdsoHasItsFunctionNames) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "on"}, "vdso_target");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_TRUE(fs::is_regular_file(c.experiment / "vdso.so"));
  const double truth = c.truth.at("functions").at("read_clock_often").get<double>();
  const auto view = er_print_json({"-metrics", "e.user:i.user:name", "-functions"}, c.experiment);
  const auto rows = rows_by_name(view);
  ASSERT_TRUE(rows.count("read_clock_often")) << view.dump();
  EXPECT_NEAR(rows.at("read_clock_often").at("i.user").get<double>(), truth, sampling_tolerance(truth, 0.010));
  double in_vdso = 0;
  bool named_clock_gettime = false;
  for (const auto& row : view.at("rows")) {
    if (row.value("load_object", "") != "linux-vdso.so.1") continue;
    const std::string name = row.at("name");
    in_vdso += row.at("values").at("e.user").get<double>();
    EXPECT_EQ(name.find("<static>@0x0 "), std::string::npos) << "an unnamed vDSO: " << name;
    named_clock_gettime = named_clock_gettime || name.find("clock_gettime") != std::string::npos;
  }
  EXPECT_TRUE(named_clock_gettime) << view.dump();
  EXPECT_GT(in_vdso, 0.3 * truth) << "reading the clock is the loop's work";
}

TEST(ClockProfiling, RecursionCountsEachSampleOnceInInclusiveTime) {
  TempDir dir;
  const Collection c = collect(dir, {}, "recursive_target");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.user:i.user:name", "-functions"}, c.experiment));
  const double descend_self = c.truth.at("functions").at("lumen::test::descend(int, double)").get<double>();
  const double bottom = c.truth.at("functions").at("lumen::test::bottom_work(double)").get<double>();
  ASSERT_TRUE(rows.count("lumen::test::descend(int, double)")) << "C++ names are demangled";
  const double descend_inclusive = rows.at("lumen::test::descend(int, double)").at("i.user").get<double>();
  // Ten levels deep: counting every occurrence would give several times this.
  EXPECT_NEAR(descend_inclusive, descend_self + bottom, sampling_tolerance(descend_self + bottom, 0.01));
  EXPECT_LE(descend_inclusive, rows.at("<Total>").at("i.user").get<double>());
  EXPECT_NEAR(rows.at("lumen::test::bottom_work(double)").at("i.user").get<double>(), bottom,
              sampling_tolerance(bottom, 0.01));

  // Attributed: descend is its own caller and callee; its callers' shares
  // add up to its inclusive time.
  const auto cc = er_print_json({"-metrics", "a.user:i.user:name", "-callers-callees"}, c.experiment);
  bool checked = false;
  for (const auto& row : cc.at("rows")) {
    if (row.at("name") != "lumen::test::descend(int, double)") continue;
    double callers_sum = 0;
    bool calls_itself = false;
    for (const auto& caller : row.at("callers")) {
      callers_sum += caller.at("values").at("a.user").get<double>();
      calls_itself = calls_itself || caller.at("name") == row.at("name");
    }
    double callees_sum = row.at("values").at("a.user").get<double>();
    for (const auto& callee : row.at("callees")) callees_sum += callee.at("values").at("a.user").get<double>();
    EXPECT_NEAR(callers_sum, descend_inclusive, 1e-6);
    EXPECT_NEAR(callees_sum, descend_inclusive, 1e-6);
    EXPECT_FALSE(calls_itself) << "the outermost descend is called by main, not by itself";
    checked = true;
  }
  EXPECT_TRUE(checked);
}

TEST(ClockProfiling, TargetsOwnSigprofHandlersAndMasksAreChainedNotLost) {
  const ProcessResult plain = run_process({(target_dir() / "signal_target").string()});
  TempDir dir;
  const Collection c = collect(dir, {"-p", "on"}, "signal_target");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(plain.out,
            "own SIGPROF handler still installed: yes\nown SIGPROF handler ran: yes\nSIGUSR1 handler ran: yes\n");
  EXPECT_EQ(c.run.out, plain.out);
  // The target blocked SIGPROF for its second half; sampling went on.
  expect_inclusive_matches_truth(c, 0.010);
  // A handler is called from the sigreturn trampoline, which has a name
  // even when libc carries no symbol for it (its CFI marks a signal frame).
  const auto cc = er_print_json({"-metrics", "i.user:name", "-callers-callees"}, c.experiment);
  bool checked = false;
  for (const auto& row : cc.at("rows")) {
    if (row.at("name") != "on_usr1") continue;
    ASSERT_EQ(row.at("callers").size(), 1u) << row.dump();
    EXPECT_EQ(row.at("callers")[0].at("name"), "__restore_rt") << row.dump();
    checked = true;
  }
  EXPECT_TRUE(checked) << "no samples in the SIGUSR1 handler";
}

}  // namespace
}  // namespace lumen::test
