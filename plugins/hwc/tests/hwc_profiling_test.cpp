// Hardware counter profiling end to end, with the kernel's software events
// (every Linux machine has them): hwc_target measures its own page faults,
// CPU time, context switches and moves between CPUs, and er_print's counter metrics per function are compared
// with that truth, within what overflow sampling can promise (one overflow
// interval: the increment of the first overflow inside a function includes
// counts from before it, and the counts after its last overflow land on the
// next one). Where the machine has no PMU, hardware counters are left out
// with one message and the target runs with the rest; where it has one they
// are profiled.
#include <gtest/gtest.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string hwc_target() { return LUMEN_HWC_TARGET; }

// task-clock counts, and its hrtimer samples, the time a thread is on a
// CPU as the guest sees it; the target's CPU clock leaves out what the
// hypervisor stole meanwhile. So a count may pass the truth by the
// machine's steal time during the run (up to 0.1 s here under load), on
// top of what overflow sampling allows.
void expect_task_clock(double counted, double truth, double tolerance, double stolen, const char* what) {
  EXPECT_GE(counted, truth - tolerance) << what << ": the target measured " << truth << " s";
  EXPECT_LE(counted, truth + tolerance + stolen)
      << what << ": the target measured " << truth << " s, the machine's steal time meanwhile " << stolen << " s";
}

// Runs collect as collect() does and measures the machine's steal time
// over the run.
Collection collect_with_steal(const TempDir& dir, const std::vector<std::string>& args,
                              const std::vector<std::string>& target_args, double& stolen) {
  const double before = machine_steal_seconds();
  Collection c = collect(dir, args, hwc_target(), target_args);
  stolen = machine_steal_seconds() - before;
  return c;
}

// Why perf_event_open of PERF_COUNT_HW_CPU_CYCLES fails here, or "".
// A disabled counter of the calling thread, as the kernel defines it.
perf_event_attr counter_attr(uint32_t type, uint64_t config) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = type;
  attr.config = config;
  attr.disabled = 1;
  return attr;
}

// Why perf_event_open refuses `attr` (named `what`), or "".
std::string open_refused(const perf_event_attr& attr, const std::string& what) {
  const int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0));
  if (fd >= 0) {
    close(fd);
    return "";
  }
  return "perf_event_open(" + what + "): " + std::strerror(errno);
}

std::string no_pmu_reason() {
  perf_event_attr attr = counter_attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  return open_refused(attr, "PERF_COUNT_HW_CPU_CYCLES");
}

// The page faults touch_fresh_pages took, as its thread's rusage counts
// them: minor and major, both of which page-faults counts.
double faults_of(const json& truth) {
  return truth.at("minor_faults").get<double>() + truth.at("major_faults").get<double>();
}

double row_value(const std::map<std::string, json>& rows, const std::string& function, const std::string& key) {
  const auto row = rows.find(function);
  return row == rows.end() ? 0.0 : row->second.at(key).get<double>();
}

TEST(HwcProfiling, PageFaultOverflowsMatchTheTargetsOwnFaultCount) {
  TempDir dir;
  constexpr int kInterval = 100;
  const Collection c = collect(dir, {"-p", "off", "-h", "page-faults," + std::to_string(kInterval)}, hwc_target(),
                               {"faults", "20011"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const double truth = faults_of(c.truth);
  ASSERT_GE(truth, 20011) << "every fresh page faults once";
  const auto rows = rows_by_name(
      er_print_json({"-metrics", "e.page-faults:i.page-faults:name", "-functions"}, c.experiment));
  const double in_function = row_value(rows, "touch_fresh_pages", "e.page-faults");
  EXPECT_NEAR(in_function, truth, kInterval + 0.01 * truth);
  // Nothing is lost: every fault the thread took is on some stack, or on
  // collector_final_counters for those after the last overflow; but for
  // the major faults of the collector's own records of the overflows
  // (pages of its data file: 15 at 200 overflows, none without), which
  // the counter was not seen to count.
  EXPECT_GE(row_value(rows, "<Total>", "i.page-faults"), truth - c.truth.at("major_faults").get<double>());
  EXPECT_NEAR(row_value(rows, "main", "i.page-faults"), truth, kInterval + 0.01 * truth);
}

TEST(HwcProfiling, CountsAfterTheLastOverflowGoToCollectorFinalCounters) {
  TempDir dir;
  // An interval far above what the target does: no overflow at all.
  const Collection c = collect(dir, {"-p", "off", "-h", "page-faults,100000000"}, hwc_target(), {"faults", "503"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const double truth = faults_of(c.truth);
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.page-faults:name", "-functions"}, c.experiment));
  EXPECT_EQ(row_value(rows, "touch_fresh_pages", "e.page-faults"), 0);
  EXPECT_GE(row_value(rows, "collector_final_counters", "e.page-faults"), truth);
  EXPECT_EQ(row_value(rows, "collector_final_counters", "e.page-faults"), row_value(rows, "<Total>", "e.page-faults"));
}

// Why the kernel cannot sample context switches with perf's synchronous
// signal here (what collect -h context-switches needs), or "".
std::string no_context_switch_traps() {
  utsname name{};
  int major = 0, minor = 0;
  if (uname(&name) != 0 || std::sscanf(name.release, "%d.%d", &major, &minor) != 2) return "uname";
  if (major < 6 || (major == 6 && minor < 1)) return std::string("Linux ") + name.release + " is older than 6.1";
  perf_event_attr attr = counter_attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
  attr.sample_period = 1;
  attr.sigtrap = 1;
  attr.remove_on_exec = 1;
  return open_refused(attr, "PERF_COUNT_SW_CONTEXT_SWITCHES, sigtrap");
}

// The kernel counts a context switch as the thread leaves the CPU: each one
// is recorded with the stack that led there, as many as the thread's own
// rusage counts, and no sleep of the program is cut short by the signal
// that records it. Where the kernel cannot, collect says why.
TEST(HwcProfiling, ContextSwitchesMatchTheTargetsOwnCount) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "off", "-h", "context-switches,1"}, hwc_target(), {"switches", "300"});
  if (const std::string why = no_context_switch_traps(); !why.empty()) {
    EXPECT_NE(c.run.err.find("context-switches"), std::string::npos) << why << ": " << c.run.err;
    return;
  }
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const double truth = c.truth.at("context_switches").get<double>();
  EXPECT_GE(truth, 300) << "every sleep leaves the CPU";
  EXPECT_EQ(c.truth.at("interrupted").get<double>(), 0) << "a sleep was cut short";
  const auto rows = rows_by_name(
      er_print_json({"-metrics", "e.context-switches:i.context-switches:name", "-functions"}, c.experiment));
  // Each switch is recorded on its own (one event an overflow); one before
  // the function may be counted with its first.
  EXPECT_NEAR(row_value(rows, "sleep_often", "i.context-switches"), truth, 2);
  EXPECT_GE(row_value(rows, "<Total>", "i.context-switches"), truth);
}

// The kernel counts a migration as it moves the thread to another CPU:
// migrate_often pins itself to each CPU in turn, and each move it saw
// (sched_getcpu before and after) is recorded with the stack that made it.
TEST(HwcProfiling, CpuMigrationsMatchTheTargetsOwnCount) {
  TempDir dir;
  constexpr int kPins = 301;
  const Collection c =
      collect(dir, {"-p", "off", "-h", "cpu-migrations,1"}, hwc_target(), {"migrate", std::to_string(kPins)});
  if (const std::string why = no_context_switch_traps(); !why.empty()) {
    EXPECT_NE(c.run.err.find("cpu-migrations"), std::string::npos) << why << ": " << c.run.err;
    return;
  }
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  if (c.truth.at("cpus").get<int>() < 2) GTEST_SKIP() << "the target may use one CPU only: nothing can move it";
  const double truth = c.truth.at("moves").get<double>();
  EXPECT_GE(truth, kPins - 1) << "each pin but perhaps the first moves the thread";
  const auto rows = rows_by_name(
      er_print_json({"-metrics", "e.cpu-migrations:i.cpu-migrations:name", "-functions"}, c.experiment));
  // One event an overflow; before the first pin the thread is free to
  // move, and a move there and back between two sched_getcpu calls is
  // counted by the kernel and not seen: allow two.
  EXPECT_NEAR(row_value(rows, "migrate_often", "i.cpu-migrations"), truth, 2);
  EXPECT_GE(row_value(rows, "<Total>", "i.cpu-migrations"), truth);
}

TEST(HwcProfiling, TaskClockMatchesTheTargetsOwnCpuTime) {
  TempDir dir;
  constexpr double kIntervalSeconds = 0.001;
  double stolen = 0;
  const Collection c = collect_with_steal(dir, {"-p", "off", "-h", "task-clock,1000000"}, {"burn", "1500"}, stolen);
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const double truth = c.truth.at("cpu_seconds").get<double>();
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.task-clock:name", "-functions"}, c.experiment));
  expect_task_clock(row_value(rows, "burn_cpu", "e.task-clock"), truth, sampling_tolerance(truth, kIntervalSeconds),
                    stolen, "burn_cpu");
  const json metrics = er_print_json({"-metric_list"}, c.experiment);
  bool listed = false;
  for (const json& m : metrics.at("metrics"))
    if (m.at("keyword") == "task-clock") {
      listed = true;
      EXPECT_EQ(m.at("unit"), "sec.");
    }
  EXPECT_TRUE(listed) << metrics.dump();
}

TEST(HwcProfiling, EveryThreadIsCounted) {
  TempDir dir;
  constexpr double kIntervalSeconds = 0.001;
  double stolen = 0;
  const Collection c = collect_with_steal(dir, {"-p", "off", "-h", "task-clock,1000000"}, {"burn", "400", "3"}, stolen);
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const double truth = c.truth.at("cpu_seconds").get<double>();
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.task-clock:name", "-functions"}, c.experiment));
  // Three threads, each a contiguous region: three regions' worth of slack.
  expect_task_clock(row_value(rows, "burn_cpu", "e.task-clock"), truth,
                    3 * sampling_tolerance(truth / 3, kIntervalSeconds), stolen, "burn_cpu on three threads");
}

// A time counter's interval below its floor (50 us) is refused by collect
// with the floor named, before the target starts: at 1 ns or 1 us the
// overflows would come faster than a thread can take them.
TEST(HwcProfiling, TaskClockBelowItsFloorIsRefusedBeforeTheTargetStarts) {
  for (const std::string interval : {"1", "1000"})
    for (const std::string threads : {"1", "8"}) {
      SCOPED_TRACE("task-clock," + interval + " on " + threads + " threads");
      TempDir dir;
      const Collection c =
          collect(dir, {"-p", "off", "-h", "task-clock," + interval}, hwc_target(), {"burn", "300", threads});
      EXPECT_EQ(c.run.exit_code, 2) << c.run.err;
      EXPECT_NE(c.run.err.find("below its floor of 50000 ns"), std::string::npos) << c.run.err;
      EXPECT_TRUE(c.truth.is_null()) << "the target ran";
    }
}

// At the floor, on one thread and on eight threads sharing two CPUs: the
// target is never killed (no overflow storm, no signal of the kernel's
// queue fallback), and the counts are still the threads' CPU time.
TEST(HwcProfiling, TaskClockAtItsFloorOnOneAndEightThreadsIsNeverKilled) {
  for (const int threads : {1, 8}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    TempDir dir;
    double stolen = 0;
    const Collection c = collect_with_steal(dir, {"-p", "off", "-h", "task-clock,50000"},
                                            {"burn", "300", std::to_string(threads)}, stolen);
    ASSERT_EQ(c.run.signal, 0) << c.run.err;
    ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
    const double truth = c.truth.at("cpu_seconds").get<double>();
    const auto rows = rows_by_name(er_print_json({"-metrics", "e.task-clock:name", "-functions"}, c.experiment));
    expect_task_clock(row_value(rows, "burn_cpu", "e.task-clock"), truth,
                      threads * sampling_tolerance(truth / threads, 50e-6), stolen, "burn_cpu");
  }
}

// A forked child's counters are its own (the collector's fork_child closes
// the copies of its parent's, and thread_begin opens new ones): each
// process's task-clock is its own CPU time, in its own experiment.
TEST(HwcProfiling, AForkedChildCountsItsOwnWorkInItsOwnExperiment) {
  TempDir dir;
  constexpr double kIntervalSeconds = 0.001;
  double stolen = 0;
  const Collection c = collect_with_steal(dir, {"-p", "off", "-h", "task-clock,1000000"}, {"fork", "600", "400"}, stolen);
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const double parent = c.truth.at("parent_cpu_seconds").get<double>();
  const double child = c.truth.at("child_cpu_seconds").get<double>();
  ASSERT_TRUE(fs::exists(c.experiment / "_f1.er"));
  const std::vector<std::string> view{"-metrics", "e.task-clock:i.task-clock:name", "-functions"};
  // The child's experiment alone: its work, none of the parent's.
  const auto forked = rows_by_name(er_print_json(view, c.experiment / "_f1.er"));
  const double tolerance = sampling_tolerance(child, kIntervalSeconds);
  expect_task_clock(row_value(forked, "forked_child_work", "i.task-clock"), child, tolerance, stolen,
                    "the child's forked_child_work");
  expect_task_clock(row_value(forked, "burn_cpu", "e.task-clock"), child, tolerance, stolen, "the child's burn_cpu");
  // The founder with its descendant: both processes' work, each once.
  const auto all = rows_by_name(er_print_json(view, c.experiment));
  expect_task_clock(row_value(all, "forked_child_work", "i.task-clock"), child, tolerance, stolen,
                    "forked_child_work in the whole experiment");
  expect_task_clock(row_value(all, "burn_cpu", "e.task-clock"), parent + child,
                    sampling_tolerance(parent, kIntervalSeconds) + tolerance, stolen, "burn_cpu in both processes");
}

TEST(HwcProfiling, TwoSoftwareCountersInOneRun) {
  TempDir dir;
  const Collection c =
      collect(dir, {"-p", "off", "-h", "task-clock,hi,page-faults,100"}, hwc_target(), {"faults", "10007"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const double truth = faults_of(c.truth);
  const auto rows = rows_by_name(
      er_print_json({"-metrics", "e.page-faults:e.task-clock:name", "-functions"}, c.experiment));
  EXPECT_NEAR(row_value(rows, "touch_fresh_pages", "e.page-faults"), truth, 100 + 0.01 * truth);
  EXPECT_GT(row_value(rows, "<Total>", "e.task-clock"), 0);
}

// The one message collect prints for a counter it leaves out here.
constexpr const char* kCyclesLeftOut =
    "collect: -h: hardware counter cycles (PERF_COUNT_HW_CPU_CYCLES) cannot be counted here: perf_event_open: ";

size_t occurrences(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
  return count;
}

TEST(HwcProfiling, AHardwareCounterIsLeftOutWhereThereIsNoPmuAndTheTargetRunsUnchanged) {
  const std::string reason = no_pmu_reason();
  if (reason.empty()) GTEST_SKIP() << "this machine has a hardware PMU: HardwareCountersProfileWhereThereIsAPmu";
  TempDir dir;
  const std::string target = (target_dir() / "behaviour_target").string();
  const ProcessResult plain = run_process({target, "7", "two words"}, {}, "a line\n");
  const ProcessResult collected = run_process(
      {(bin_dir() / "collect").string(), "-d", dir.path().string(), "-h", "cycles", target, "7", "two words"}, {},
      "a line\n");
  EXPECT_EQ(plain.exit_code, 7);
  EXPECT_EQ(collected.exit_code, 7) << collected.err;
  EXPECT_EQ(collected.out, plain.out);
  EXPECT_EQ(occurrences(collected.err, kCyclesLeftOut), 1u) << collected.err;
  EXPECT_NE(collected.err.find("no hardware PMU"), std::string::npos) << collected.err;
  EXPECT_NE(collected.err.find("cycles is left out, and the target runs without it"), std::string::npos)
      << collected.err;
  const fs::path experiment = dir.path() / "test.1.er";
  ASSERT_TRUE(fs::is_directory(experiment));
  const json header = er_print_json({"-header"}, experiment).at("experiments").at(0);
  const std::string left_out = header.at("left_out1").get<std::string>();
  EXPECT_EQ(left_out.rfind("hwc cycles: hardware counter cycles (PERF_COUNT_HW_CPU_CYCLES) cannot be counted here", 0),
            0u)
      << left_out;
  EXPECT_NE(left_out.find("no hardware PMU"), std::string::npos) << left_out;
  EXPECT_FALSE(header.contains("plugin.hwc")) << "nothing was left to count: " << header.dump();
  EXPECT_EQ(header.at("exit_code"), 7);
}

TEST(HwcProfiling, WhatRemainsIsCollectedBesideACounterLeftOut) {
  const std::string reason = no_pmu_reason();
  if (reason.empty()) GTEST_SKIP() << "this machine has a hardware PMU: HardwareCountersProfileWhereThereIsAPmu";
  TempDir dir;
  constexpr int kInterval = 100;
  const Collection c = collect(dir, {"-p", "on", "-h", "cycles,on,page-faults," + std::to_string(kInterval)},
                               hwc_target(), {"faults", "20011"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(occurrences(c.run.err, kCyclesLeftOut), 1u) << c.run.err;
  const double truth = faults_of(c.truth);
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.page-faults:name", "-functions"}, c.experiment));
  EXPECT_NEAR(row_value(rows, "touch_fresh_pages", "e.page-faults"), truth, kInterval + 0.01 * truth);
  const json header = er_print_json({"-header"}, c.experiment).at("experiments").at(0);
  EXPECT_TRUE(header.contains("plugin.clock")) << header.dump();
  EXPECT_NE(header.at("plugin.hwc").get<std::string>().find("counters=page-faults,100)"), std::string::npos)
      << header.dump();
  EXPECT_NE(header.at("left_out1").get<std::string>().find("hwc cycles: "), std::string::npos) << header.dump();
  const json metrics = er_print_json({"-metric_list"}, c.experiment);
  EXPECT_EQ(metrics.dump().find("\"cycles\""), std::string::npos) << "no metric for a counter left out";
}

TEST(HwcProfiling, HardwareCountersProfileWhereThereIsAPmu) {
  const std::string reason = no_pmu_reason();
  if (!reason.empty()) GTEST_SKIP() << "no hardware PMU here: " << reason;
  TempDir dir;
  const Collection c = collect(dir, {"-p", "off", "-h", "cycles,on,insts,on"}, hwc_target(), {"burn", "500"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto rows =
      rows_by_name(er_print_json({"-metrics", "e.cycles:e.insts:e.CPI:i.IPC:name", "-functions"}, c.experiment));
  const double cycles = row_value(rows, "burn_cpu", "e.cycles"), insts = row_value(rows, "burn_cpu", "e.insts");
  EXPECT_GT(cycles, 0);
  EXPECT_GT(insts, 0);
  EXPECT_GE(row_value(rows, "<Total>", "e.cycles"), cycles);
  EXPECT_NEAR(row_value(rows, "burn_cpu", "e.CPI"), cycles / insts, 1e-8 * cycles / insts);
}

TEST(HwcProfiling, UnknownCountersAndBadIntervalsAreRefusedClearly) {
  TempDir dir;
  Collection c = collect(dir, {"-h", "no-such-counter"}, hwc_target(), {"faults", "11"});
  EXPECT_EQ(c.run.exit_code, 2);
  EXPECT_NE(c.run.err.find("unknown counter 'no-such-counter'"), std::string::npos) << c.run.err;
  EXPECT_TRUE(c.truth.is_null());
  c = collect(dir, {"-h", "page-faults,0"}, hwc_target(), {"faults", "11"});
  EXPECT_EQ(c.run.exit_code, 2);
  EXPECT_NE(c.run.err.find("the interval '0' of page-faults is not a positive number"), std::string::npos)
      << c.run.err;
}

TEST(HwcProfiling, CollectDashHAloneListsThisMachinesCounters) {
  const ProcessResult r = run_process({(bin_dir() / "collect").string(), "-h"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  if (no_pmu_reason().empty()) {
    EXPECT_NE(r.out.find("Aliased HW counters available for profiling:\ncycles,10000019 (`CPU Cycles', alias for "),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("Raw HW counters available for profiling:"), std::string::npos) << r.out;
  } else {
    EXPECT_EQ(r.out.rfind("No hardware counters available for profiling: perf_event_open refuses "
                          "PERF_COUNT_HW_CPU_CYCLES",
                          0),
              0u)
        << r.out;
  }
  EXPECT_NE(r.out.find("Software events available for profiling:\n"
                       "task-clock,10000000 (`Task Clock', alias for PERF_COUNT_SW_TASK_CLOCK; nanoseconds)\n"
                       "page-faults,1009 (`Page Faults', alias for PERF_COUNT_SW_PAGE_FAULTS; events)\n"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace lumen::test
