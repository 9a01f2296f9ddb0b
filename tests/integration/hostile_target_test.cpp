// Targets that try to break collection: closing every descriptor, threads
// and forks by the hundred and thousand, their own SIGPROF timers, _exit
// and SIGKILL. The experiment is never lost, nothing deadlocks, the target
// behaves as without collect, and the header says how it ended.
#include <gtest/gtest.h>

#include <fstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

std::string hostile_target() { return (target_dir() / "hostile_target").string(); }

ProcessResult plain_run(const std::vector<std::string>& args) { return run_without_collect("hostile_target", args); }

void expect_work_profiled(const Collection& c) {
  const double truth = c.truth.at("functions").at("hostile_work").get<double>();
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.user:name", "-functions"}, c.experiment));
  ASSERT_TRUE(rows.count("hostile_work"));
  EXPECT_NEAR(rows.at("hostile_work").at("e.user").get<double>(), truth, sampling_tolerance(truth, 0.01));
}

TEST(HostileTarget, ClosingEveryDescriptorLosesNothing) {
  const ProcessResult plain = plain_run({"close_all"});
  TempDir dir;
  const Collection c = collect(dir, {}, "hostile_target", {"close_all"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, plain.out) << "the target's descriptors are numbered as without collect";
  EXPECT_EQ(c.run.out, "first descriptor after closing all: 3\n");
  expect_work_profiled(c);
  EXPECT_TRUE(log_has_end(c.experiment));
}

TEST(HostileTarget, ThousandsOfThreads) {
  TempDir dir;
  const Collection c = collect(dir, {}, "hostile_target", {"threads", "3000"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, "threads: 3000 created and joined\n");
  expect_work_profiled(c);
  EXPECT_TRUE(log_has_end(c.experiment));
}

TEST(HostileTarget, ForkStorm) {
  TempDir dir;
  const Collection c = collect(dir, {}, "hostile_target", {"forks", "120"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, "forks: 120 of 120 children exited 0\n");
  expect_work_profiled(c);
  size_t children = 0;
  for (const auto& entry : fs::directory_iterator(c.experiment))
    children += entry.path().extension() == ".er" && fs::exists(entry.path() / "header.yaml");
  EXPECT_EQ(children, 120u);
  EXPECT_EQ(er_print_json({"-exp_list"}, c.experiment).at("experiments").size(), 121u);
}

TEST(HostileTarget, ItsOwnTimersNeitherStealNorDisableProfiling) {
  const ProcessResult plain = plain_run({"timers"});
  TempDir dir;
  const Collection c = collect(dir, {}, "hostile_target", {"timers"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, plain.out);
  EXPECT_EQ(c.run.out, "timers deleted that it never created: 0\nown SIGPROF timer delivered: yes\n");
  expect_work_profiled(c);
}

TEST(HostileTarget, UnderscoreExitIsRecordedWithItsStatus) {
  TempDir dir;
  const Collection c = collect(dir, {}, "hostile_target", {"exit", "9"});
  EXPECT_EQ(c.run.exit_code, 9);
  expect_work_profiled(c);
  const auto header = er_print_json({"-header"}, c.experiment).at("experiments").at(0);
  EXPECT_EQ(header.at("exit_code").get<int>(), 9) << header.dump();
}

TEST(HostileTarget, KilledTargetIsRecordedWithItsSignal) {
  TempDir dir;
  const Collection c = collect(dir, {}, "hostile_target", {"kill"});
  EXPECT_EQ(c.run.signal, SIGKILL);
  expect_work_profiled(c);
  const auto header = er_print_json({"-header"}, c.experiment).at("experiments").at(0);
  EXPECT_EQ(header.at("signal").get<std::string>(), "SIGKILL") << header.dump();
}

// A thread inside the dynamic linker's lock takes profiling signals while
// fresh threads' allocations make the unwinder look up unwind tables: the
// runtime's unwinding must never wait for that lock (object_snapshot.h).
TEST(HostileTarget, UnwindingNeverWaitsForTheLinkersLock) {
  constexpr int kWaves = 200;
  const ProcessResult plain = plain_run({"linker_lock", std::to_string(kWaves)});
  TempDir dir;
  const Collection c = collect(dir, {"-p", "hi", "-H", "on"}, "hostile_target", {"linker_lock", std::to_string(kWaves)});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, plain.out);
  EXPECT_TRUE(log_has_end(c.experiment));
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.heapalloccnt:name", "-functions"}, c.experiment));
  for (const char* site : {"site_10000", "site_11233", "site_13333"}) {
    ASSERT_TRUE(rows.count(site)) << site;
    EXPECT_EQ(rows.at(site).at("i.heapalloccnt").get<double>(), 4.0 * kWaves) << site;
  }
}

TEST(HostileTarget, UnwritableDirectoryAndBadNamesAreRefusedBeforeTheTargetStarts) {
  TempDir dir;
  const fs::path locked = dir.path() / "locked";
  fs::create_directory(locked);
  fs::permissions(locked, fs::perms::owner_read | fs::perms::owner_exec);
  const auto truth = dir.path() / "truth.json";
  const std::map<std::string, std::string> env{{"LUMEN_TEST_TRUTH", truth.string()}};
  const std::string collect = (bin_dir() / "collect").string();
  // root writes through permissions; others are refused by them.
  if (geteuid() != 0) {
    const ProcessResult r = run_process({collect, "-d", locked.string(), hostile_target(), "exit", "0"}, env);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("cannot write in directory"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(truth));
  }
  // Unwritable even for root: procfs takes no new directories.
  const ProcessResult proc = run_process({collect, "-d", "/proc", hostile_target(), "exit", "0"}, env);
  EXPECT_EQ(proc.exit_code, 2);
  EXPECT_TRUE(proc.err.find("cannot write in directory") != std::string::npos ||
              proc.err.find("cannot create") != std::string::npos) << proc.err;
  EXPECT_FALSE(fs::exists(truth));
  const ProcessResult missing =
      run_process({collect, "-d", (dir.path() / "absent").string(), hostile_target(), "exit", "0"}, env);
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("does not exist"), std::string::npos) << missing.err;
  const ProcessResult name = run_process({collect, "-d", dir.path().string(), "-o", "run", hostile_target(), "exit", "0"}, env);
  EXPECT_EQ(name.exit_code, 2);
  EXPECT_NE(name.err.find("must end in .er"), std::string::npos) << name.err;
  EXPECT_FALSE(fs::exists(truth));
}

}  // namespace
}  // namespace lumen::test
