// The target is never harmed: a real program observes what collection could
// change behind its back (how long its sleeps last and what they return,
// its descriptor numbers, its signal mask, its forks while other threads
// allocate, its raw close_range), and every observation under collect is
// compared with the same program run without it.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <fstream>
#include <set>
#include <sstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

std::string unharmed_target() { return (target_dir() / "unharmed_target").string(); }

ProcessResult plain_run(const std::vector<std::string>& args) { return run_without_collect("unharmed_target", args); }

// The data types that start threads of the collector's: none but the
// defaults, recording off, and every tracer with frequent samples.
const std::vector<std::vector<std::string>> kThreadStartingOptionSets = {
    {}, {"-p", "off"}, {"-p", "hi", "-s", "all", "-H", "on", "-i", "on"}};

// Runs unharmed_target MODE under each option set, expecting the plain
// run's status and output; `check` looks at each collected run too.
template <typename Check>
void expect_runs_as_plain(const std::vector<std::string>& mode, const ProcessResult& plain, Check check) {
  for (const std::vector<std::string>& options : kThreadStartingOptionSets) {
    SCOPED_TRACE(mode[0] + " under collect " + testing::PrintToString(options));
    TempDir dir;
    const Collection c = collect(dir, options, "unharmed_target", mode);
    EXPECT_EQ(c.run.exit_code, plain.exit_code) << c.run.err;
    EXPECT_EQ(c.run.out, plain.out);
    check(c);
  }
}

std::string header_of(const Collection& c) {
  return run_process({(bin_dir() / "er_print").string(), "-header", c.experiment.string()}).out;
}

struct Wait {
  std::string call;
  int rc;
  int error;
  double ms;
};

std::vector<Wait> waits_of(const std::string& out) {
  std::vector<Wait> waits;
  std::istringstream lines(out);
  Wait w;
  while (lines >> w.call >> w.rc >> w.error >> w.ms) waits.push_back(w);
  return waits;
}

// Each wait lasts at least as long as without collect (less 50 ms) and
// returns the same value and errno: no signal cut it short. A busy machine
// only lengthens a wait: the shorter of two plain runs is the floor, the
// longer one with 500 ms to spare the ceiling.
void expect_sleeps_unharmed(const std::vector<std::string>& collect_args) {
  const std::vector<Wait> plain = waits_of(plain_run({"sleeps"}).out);
  const std::vector<Wait> plain_again = waits_of(plain_run({"sleeps"}).out);
  ASSERT_EQ(plain.size(), 8u);
  ASSERT_EQ(plain_again.size(), plain.size());
  TempDir dir;
  const Collection c = collect(dir, collect_args, "unharmed_target", {"sleeps"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const std::vector<Wait> collected = waits_of(c.run.out);
  ASSERT_EQ(collected.size(), plain.size()) << c.run.out;
  for (size_t i = 0; i < plain.size(); ++i) {
    SCOPED_TRACE(plain[i].call);
    EXPECT_EQ(collected[i].call, plain[i].call);
    EXPECT_EQ(collected[i].rc, plain[i].rc);
    EXPECT_EQ(collected[i].error, plain[i].error);
    EXPECT_GE(collected[i].ms, std::min(plain[i].ms, plain_again[i].ms) - 50.0);
    EXPECT_LE(collected[i].ms, std::max(plain[i].ms, plain_again[i].ms) + 500.0);
  }
  EXPECT_TRUE(log_has_end(c.experiment));
}

TEST(UnharmedTarget, SleepsLastAsLongAsWithoutCollectUnderTheDefaults) { expect_sleeps_unharmed({}); }

TEST(UnharmedTarget, SleepsLastAsLongAsWithoutCollectWithEveryTracerAndFrequentSamples) {
  expect_sleeps_unharmed({"-p", "hi", "-H", "on", "-s", "on", "-S", "0.1"});
  // Samples were still taken every 0.1 s over the 2.2 s of waits.
  TempDir dir;
  const Collection c = collect(dir, {"-S", "0.1"}, "unharmed_target", {"sleeps"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto samples = er_print_json({"-samples"}, c.experiment);
  EXPECT_GE(samples.at("rows").size(), 20u) << samples.dump();
}

TEST(UnharmedTarget, DescriptorNumbersAreTheProgramsOwn) {
  const ProcessResult plain = plain_run({"fds"});
  EXPECT_EQ(plain.out.rfind("first open: 3\n", 0), 0u) << plain.out;  // the runner passes only 0-2
  TempDir dir;
  const Collection c = collect(dir, {"-p", "hi", "-H", "on", "-s", "on"}, "unharmed_target", {"fds"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, plain.out);
  EXPECT_TRUE(log_has_end(c.experiment));
}

// Under `ulimit -n 32` the program can open as many descriptors as without
// collect, numbered the same, and F_DUPFD gives it the number it asks for:
// `limit` sets the soft limit (`-Sn`), where the runtime's files go above
// it, or both (`-n`), where they are in no table of the program's
// (recording/file_keeper.h).
void expect_descriptors_under_limit(const std::string& limit) {
  const std::string limited = "ulimit " + limit + " 32 && exec \"$@\"";
  const ProcessResult plain = run_process({"sh", "-c", limited, "sh", unharmed_target(), "fds"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_NE(plain.out.find("opened before EMFILE"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("F_DUPFD at 24: 24\n"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("rounds that met EMFILE elsewhere: 0\n"), std::string::npos) << plain.out;
  TempDir dir;
  const ProcessResult c = run_process({"sh", "-c", limited, "sh", (bin_dir() / "collect").string(), "-o", "run.er",
                                       "-d", dir.path().string(), "-p", "hi", "-H", "on", "-s", "on", "-i", "on",
                                       unharmed_target(), "fds"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out, plain.out);
  EXPECT_TRUE(log_has_end(dir.path() / "run.er"));
  // What the helper threads did was recorded, through whichever table.
  const auto rows =
      rows_by_name(er_print_json({"-metrics", "i.heapalloccnt:name", "-functions"}, dir.path() / "run.er"));
  ASSERT_TRUE(rows.count("allocate_and_write"));
  EXPECT_GE(rows.at("allocate_and_write").at("i.heapalloccnt").get<double>(), 64.0);
}

TEST(UnharmedTarget, DescriptorsUnderALowSoftLimitAreTheProgramsOwn) { expect_descriptors_under_limit("-Sn"); }

TEST(UnharmedTarget, DescriptorsUnderALowHardLimitAreTheProgramsOwn) { expect_descriptors_under_limit("-n"); }

// A program may end without exit: main leaves through pthread_exit and its
// worker returns later, or its one thread makes the exit system call. The
// collector's threads must not keep such a process alive: it ends with the
// same output and status as without collect (a hang fails on the test's
// TIMEOUT), under every data type that starts threads of the collector's.
TEST(UnharmedTarget, AProgramThatEndsWithoutExitEndsAsWithoutCollect) {
  for (const std::vector<std::string>& mode : std::vector<std::vector<std::string>>{{"main_leaves"}, {"exit_call", "7"}}) {
    const ProcessResult plain = plain_run(mode);
    EXPECT_EQ(plain.exit_code, mode[0] == "exit_call" ? 7 : 0) << plain.err;
    expect_runs_as_plain(mode, plain, [](const Collection& c) {
      EXPECT_NE(header_of(c).find("the program's last thread ended without exit"), std::string::npos);
    });
  }
}

// A program entering a seccomp sandbox in `mode` runs and ends as without
// collect, and its experiment's header says `noted`.
void expect_sandbox_unharmed(const std::string& mode, const std::string& noted) {
  const ProcessResult plain = plain_run({mode});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  expect_runs_as_plain({mode}, plain, [&](const Collection& c) {
    EXPECT_NE(header_of(c).find(noted), std::string::npos) << header_of(c);
  });
}

// A thread in seccomp's strict mode may make no system call but read,
// write, exit and sigreturn: one made for collection (a timer's, a clock
// read this machine's vDSO cannot serve, an unwinder's) kills the process.
// Its collection ends as it enters, the experiment says so, and the
// program runs and ends as without collect.
TEST(UnharmedTarget, AProgramInSeccompStrictModeRunsAsWithoutCollect) {
  expect_sandbox_unharmed("strict_mode", "entered seccomp's strict mode");
}

// The same sandbox entered by the seccomp system call through syscall(2),
// as libseccomp and most sandboxes enter it.
TEST(UnharmedTarget, AProgramEnteringStrictModeByTheSystemCallRunsAsWithoutCollect) {
  expect_sandbox_unharmed("strict_syscall", "entered seccomp's strict mode");
}

// A filter put on every thread at once (SECCOMP_FILTER_FLAG_TSYNC) reaches
// the collector's threads too: one system call of theirs outside it kills
// the process. The process's collection ends as the filter comes, and the
// program (a worker on, main joining it, exit() at the end) runs and ends
// as without collect.
TEST(UnharmedTarget, AProgramFilteringEveryThreadRunsAsWithoutCollect) {
  expect_sandbox_unharmed("filter_every_thread", "put every thread of the process in a seccomp filter");
}

// Deferred cancellation acts at cancellation points only: not inside the
// collector's work in a call that is none (malloc, pthread_mutex_lock,
// lseek, a clock sample's unwinding), while the program's own blocking
// calls stay cancellable when a tracer interposes them. Each worker of
// the target asks for its own cancellation and must reach its
// pthread_testcancel (a C++ program: cancelled inside a function that may
// not throw it would end in std::terminate; cancelled holding its mutex,
// the others would wait for ever). Several runs: the cancellation lands
// wherever the worker is when the collector's work meets it.
TEST(UnharmedTarget, CancellationActsOnlyAtTheProgramsCancellationPoints) {
  const std::vector<std::string> args = {"20", "300"};
  const ProcessResult plain = run_without_collect("cancellation_target", args);
  ASSERT_EQ(plain.exit_code, 0) << plain.out << plain.err;
  ASSERT_EQ(plain.out,
            "reached: 20 of 20\ncancelled at the point: 20 of 20\nlock free: yes\ncancelled while blocked: 2 of 2\n");
  for (const std::vector<std::string>& options : std::vector<std::vector<std::string>>{
           {}, {"-s", "all"}, {"-p", "hi", "-s", "all", "-H", "on", "-i", "on"}}) {
    for (int run = 0; run < 3; ++run) {
      SCOPED_TRACE("collect " + testing::PrintToString(options) + ", run " + std::to_string(run));
      TempDir dir;
      const Collection c = collect(dir, options, "cancellation_target", args);
      EXPECT_EQ(c.run.exit_code, 0) << c.run.err;
      EXPECT_EQ(c.run.out, plain.out) << c.run.err;
    }
  }
}

// A program that uses the collector's signal itself sees POSIX's
// semantics: blocked, it stays pending for the program (sigwait,
// sigwaitinfo, a signalfd, a thread that waits for it while the others
// block it); its handler runs only once unblocked, with its sa_mask, and
// SA_RESETHAND resets it. Each observation is compared with the program
// run without collect.
void expect_own_signal_use_unharmed(const std::vector<std::string>& collect_options, const std::string& signal) {
  for (std::vector<std::string> mode : std::vector<std::vector<std::string>>{
           {"sigwait"}, {"handler"}, {"count", "3"}, {"waiter", "5"}}) {
    mode.push_back(signal);
    const ProcessResult plain = run_without_collect("own_signal_target", mode);
    ASSERT_EQ(plain.exit_code, 0) << plain.out << plain.err;
    for (int run = 0; run < 2; ++run) {
      SCOPED_TRACE(testing::PrintToString(mode) + " under collect " + testing::PrintToString(collect_options));
      TempDir dir;
      const Collection c = collect(dir, collect_options, "own_signal_target", mode);
      EXPECT_EQ(c.run.exit_code, 0) << c.run.err;
      EXPECT_EQ(c.run.out, plain.out);
    }
  }
}

TEST(UnharmedTarget, TheProgramsOwnSigprofIsAsWithoutCollect) {
  expect_own_signal_use_unharmed({}, std::to_string(SIGPROF));
  expect_own_signal_use_unharmed({"-p", "hi", "-s", "all", "-H", "on", "-i", "on"}, std::to_string(SIGPROF));
}

// -l and -y take their signal and the program still gets its own use of
// it; each delivery is one sample point, never two.
TEST(UnharmedTarget, SampleAndPauseSignalsStayThePrograms) {
  const std::string usr1 = std::to_string(SIGUSR1);
  expect_own_signal_use_unharmed({"-l", "SIGUSR1"}, usr1);
  expect_own_signal_use_unharmed({"-y", "SIGUSR1,r"}, usr1);
  for (const auto& [mode, deliveries] : std::vector<std::pair<std::vector<std::string>, size_t>>{
           {{"count", "3", usr1}, 3}, {{"waiter", "5", usr1}, 5}}) {
    TempDir dir;
    const Collection c = collect(dir, {"-l", "SIGUSR1"}, "own_signal_target", mode);
    ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
    const nlohmann::json samples = er_print_json({"-samples"}, c.experiment);
    size_t signal_samples = 0;
    for (const nlohmann::json& row : samples.at("rows")) signal_samples += row.at("name") == "Signal" ? 1 : 0;
    EXPECT_EQ(signal_samples, deliveries) << mode[0];
  }
}

// What collection adds to the process stays out of the program's sight:
// its environment is its own but for the preload (the collector's
// variables are taken out), and its timers get the ids they would (the
// collector's own take ids of a range far above, where the kernel lets a
// process choose them: Linux 6.16 and later).
bool kernel_lets_a_process_choose_timer_ids() {
  constexpr int kTimerCreateRestoreIds = 77, kGet = 2;  // PR_TIMER_CREATE_RESTORE_IDS, _GET
  return prctl(kTimerCreateRestoreIds, kGet, 0, 0, 0) >= 0;
}

TEST(UnharmedTarget, TheProgramSeesNoTraceOfCollection) {
  const ProcessResult plain = plain_run({"traces"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_NE(plain.out.find("timer ids: 0 1 2 3\n"), std::string::npos) << plain.out;
  for (const std::vector<std::string>& options : std::vector<std::vector<std::string>>{
           {}, {"-p", "hi", "-s", "all", "-H", "on", "-i", "on", "-S", "0.1"}}) {
    SCOPED_TRACE("collect " + testing::PrintToString(options));
    TempDir dir;
    const Collection c = collect(dir, options, "unharmed_target", {"traces"});
    EXPECT_EQ(c.run.exit_code, 0) << c.run.err;
    if (kernel_lets_a_process_choose_timer_ids()) {
      EXPECT_EQ(c.run.out, plain.out);
    } else {  // the environment still: all but the timers' line
      EXPECT_EQ(c.run.out.substr(0, c.run.out.rfind("timer ids:")), plain.out.substr(0, plain.out.rfind("timer ids:")));
    }
  }
  if (!kernel_lets_a_process_choose_timer_ids())
    GTEST_SKIP() << "this kernel has no PR_TIMER_CREATE_RESTORE_IDS (Linux 6.16): the program's timer ids follow "
                    "the collector's; its environment was checked";
}

// A program that caps its own address space (RLIMIT_AS) allocates as
// much as without collect: the collector reserves what it needs as it
// needs it (its stack table grows by chunks; its threads never allocate,
// which would give each a malloc arena of 64 MiB), not a gigabyte at start.
TEST(UnharmedTarget, AnAddressSpaceLimitLeavesTheProgramItsMemory) {
  const ProcessResult plain = plain_run({"address_limit"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_EQ(plain.out, "allocated under a 300 MiB address space: 50000 of 50000, on a thread 1000 of 1000\n");
  expect_runs_as_plain({"address_limit"}, plain, [](const Collection& c) { EXPECT_TRUE(log_has_end(c.experiment)); });
}

TEST(UnharmedTarget, ProgramReadsBackTheSignalMaskItSet) {
  const ProcessResult plain = plain_run({"mask"});
  ASSERT_EQ(plain.exit_code, 0);
  EXPECT_NE(plain.out.find("after blocking every signal: 1 2 3"), std::string::npos) << plain.out;
  for (const std::vector<std::string>& options : std::vector<std::vector<std::string>>{
           {}, {"-p", "hi", "-h", "task-clock,1000003", "-y", "SIGUSR2", "-l", "SIGUSR1"}}) {
    TempDir dir;
    const Collection c = collect(dir, options, "unharmed_target", {"mask"});
    ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
    EXPECT_EQ(c.run.out, plain.out);
  }
}

// Three threads allocate without pause while the main thread forks 300
// children that allocate too: every lock the runtime and libunwind hold is
// safe across fork, in 10 runs in a row.
TEST(UnharmedTarget, ForksWhileOtherThreadsAllocateAllFinish) {
  for (int run = 0; run < 10; ++run) {
    SCOPED_TRACE("run " + std::to_string(run + 1));
    TempDir dir;
    const Collection c = collect(dir, {"-p", "hi", "-H", "on"}, "unharmed_target", {"fork_alloc", "300"});
    ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
    ASSERT_EQ(c.run.out, "fork_alloc: 300 of 300 children exited 0\n");
    ASSERT_TRUE(log_has_end(c.experiment));
    ASSERT_TRUE(fs::exists(c.experiment / "_f300.er" / "header.yaml"));
  }
}

// A raw close_range system call closes the runtime's descriptors too: the
// runtime opens its files again and loses nothing after it.
TEST(UnharmedTarget, RawCloseRangeLosesNothing) {
  constexpr int kAllocations = 200003;
  const ProcessResult plain = plain_run({"close_range", std::to_string(kAllocations)});
  TempDir dir;
  const Collection c =
      collect(dir, {"-p", "on", "-H", "on"}, "unharmed_target", {"close_range", std::to_string(kAllocations)});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, plain.out);
  EXPECT_TRUE(log_has_end(c.experiment));
  const auto rows = rows_by_name(
      er_print_json({"-metrics", "i.heapalloccnt:i.totalcpu:name", "-functions"}, c.experiment));
  ASSERT_TRUE(rows.count("allocate_after_close"));
  EXPECT_EQ(rows.at("allocate_after_close").at("i.heapalloccnt").get<double>(), kAllocations);
  for (const char* work : {"work_before_close", "work_after_close"}) {
    ASSERT_TRUE(rows.count(work)) << work;
    const double truth = c.truth.at("functions").at(work).get<double>();
    EXPECT_NEAR(rows.at(work).at("i.totalcpu").get<double>(), truth, sampling_tolerance(truth, 0.01)) << work;
  }
}

// A thread opens and closes a library without pause (each time the
// runtime refreshes its snapshot of loaded objects) while the main thread
// forks children that open one too: a fork in the middle of a refresh must
// not leave the child waiting for a refresh no thread of its own finishes.
TEST(UnharmedTarget, ForksWhileAnotherThreadLoadsLibrariesAllFinish) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "on", "-H", "on"}, "unharmed_target", {"fork_dlopen", "200"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, "fork_dlopen: 200 of 200 children exited 0, 0 hung\n");
  EXPECT_TRUE(log_has_end(c.experiment));
}

// A thread makes timers without pause (the runtime's timer_create holds a
// lock of its own meanwhile) while the main thread forks: a child whose
// fork caught that lock held must not wait for it for ever when its own
// collection arms its clock timers. Before, most children hung at once.
TEST(UnharmedTarget, ForksWhileAnotherThreadMakesTimersAllFinish) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "on"}, "unharmed_target", {"fork_timers", "300"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, "fork_timers: 300 of 300 children exited 0, 0 hung\n");
  EXPECT_TRUE(log_has_end(c.experiment));
}

// Under heap tracing and clock profiling together, a profiling signal often
// lands while the runtime unwinds for a traced malloc: libunwind and the
// runtime never appear in the program's stacks.
TEST(UnharmedTarget, CollectorFramesNeverShowInUserData) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "hi", "-H", "on"}, "unharmed_target", {"fork_alloc", "40"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto functions = er_print_json({"-metrics", "i.totalcpu:i.heapalloccnt:name", "-functions"}, c.experiment);
  ASSERT_TRUE(rows_by_name(functions).count("allocate_without_pause")) << functions.dump();
  for (const auto& row : functions.at("rows")) {
    const std::string name = row.at("name").get<std::string>();
    EXPECT_EQ(name.find("unw_"), std::string::npos) << name;
    EXPECT_EQ(name.find("_ULx86_64"), std::string::npos) << name;
    EXPECT_EQ(name.find("_Ux86_64"), std::string::npos) << name;
    EXPECT_EQ(name.find("lumen::"), std::string::npos) << name;
  }
  const auto objects = er_print_json({"-objects"}, c.experiment);
  for (const auto& row : objects.at("rows")) {
    const std::string name = row.at("name").get<std::string>();
    EXPECT_EQ(name.find("libunwind"), std::string::npos) << name;
    EXPECT_EQ(name.find("liblumen"), std::string::npos) << name;
    EXPECT_EQ(name.find("collector.so"), std::string::npos) << name;
  }
}


// The collector's threads keep tables of their own: while one shared the
// program's descriptor table, every read or write of the program paid for
// it in the kernel (docs/performance.md). Seen from outside, in a real
// program (sleep) under every tracer: each lumen-* task's table holds none
// of the program's descriptors (what its stdin, stdout and stderr are
// open on) and nothing but the runtime's files, /proc, a pidfd, the kernel's
// counters and the runtime's own pipes.
TEST(UnharmedTarget, TheCollectorsThreadsHoldNoneOfTheProgramsDescriptors) {
  TempDir dir;
  const std::string experiment = (dir.path() / "run.er").string();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    const int null = open("/dev/null", O_RDONLY);
    dup2(null, 0);
    execl((bin_dir() / "collect").c_str(), "collect", "-o", "run.er", "-d", dir.path().c_str(), "-p", "hi", "-s",
          "all", "-H", "on", "-i", "on", "sleep", "3", static_cast<char*>(nullptr));
    _exit(127);
  }
  // The sleep, once collect has started it and its threads are up.
  pid_t target = 0;
  for (int tries = 0; tries < 100 && target == 0; ++tries) {
    usleep(50'000);
    std::ifstream children("/proc/" + std::to_string(child) + "/task/" + std::to_string(child) + "/children");
    pid_t pid = 0;
    if (children >> pid) {
      std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
      std::string name;
      if (comm >> name && name == "sleep") target = pid;
    }
  }
  ASSERT_NE(target, 0) << "collect did not start sleep";
  usleep(500'000);
  const fs::path tasks = "/proc/" + std::to_string(target) + "/task";
  std::set<std::string> programs;  // what the program's stdin, stdout and stderr are open on
  for (const char* fd : {"0", "1", "2"}) {
    std::error_code error;
    const fs::path file = fs::read_symlink(tasks / std::to_string(target) / "fd" / fd, error);
    if (!error) programs.insert(file.string());
  }
  ASSERT_FALSE(programs.empty());
  int collector_threads = 0;
  for (const auto& task : fs::directory_iterator(tasks)) {
    std::string name;
    std::ifstream(task.path() / "comm") >> name;
    if (name.rfind("lumen-", 0) != 0) continue;
    ++collector_threads;
    for (const auto& fd : fs::directory_iterator(task.path() / "fd")) {
      std::error_code error;
      const std::string file = fs::read_symlink(fd.path(), error).string();
      if (error) continue;  // closed meanwhile
      const bool runtimes = file.rfind(experiment, 0) == 0 || file.rfind("/proc/", 0) == 0 ||
                            file == "anon_inode:[pidfd]" || file == "anon_inode:[perf_event]" ||
                            file.rfind("pipe:", 0) == 0;
      EXPECT_TRUE(runtimes) << name << " holds " << fd.path().filename() << " -> " << file;
      EXPECT_FALSE(programs.count(file)) << name << " holds the program's " << file;
    }
  }
  EXPECT_GE(collector_threads, 3);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

}  // namespace
}  // namespace lumen::test
