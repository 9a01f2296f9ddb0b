// Job-control stops end to end: the test stops states_stop_target from
// outside (SIGSTOP, then SIGCONT, as a shell's Ctrl-Z and `fg` do) for a
// time it measures itself; each of the target's two threads (one blocked
// in read, one burning CPU) was stopped that long, and er_print's `stop`
// of each thread's function is compared with it. The target's output and
// exit status are those of a run without collect stopped the same way.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr double kInterval = 0.010;
constexpr double kStopSeconds = 0.6;

struct StoppedRun {
  ProcessResult run;
  double stopped = 0;  // seconds every thread of the target was stopped, as measured here
};

char state_of(const fs::path& task) {
  std::ifstream stat(task / "stat");
  const std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() ? text[close + 2] : '?';
}

// Whether every thread of `pid` (`main_only`: its main thread) comes to be
// in `state` within 5 s: a kernel state another process can only poll.
bool threads_reach(pid_t pid, char state, bool main_only) {
  const auto until = Clock::now() + std::chrono::seconds(5);
  const fs::path tasks = fs::path("/proc") / std::to_string(pid) / "task";
  while (Clock::now() < until) {
    bool all = true;
    std::error_code error;
    if (main_only) {
      all = state_of(tasks / std::to_string(pid)) == state;
    } else {
      for (const auto& task : fs::directory_iterator(tasks, error)) all = all && state_of(task.path()) == state;
    }
    if (all && !error) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
}

// Runs `argv` (which ends with the two FIFOs' paths) and, once the target
// wrote its process id, stops it for kStopSeconds, continues it and tells
// it to finish.
StoppedRun run_stopped(std::vector<std::string> argv, const fs::path& dir) {
  const fs::path pid_fifo = dir / "pid.fifo", go_fifo = dir / "go.fifo";
  EXPECT_EQ(mkfifo(pid_fifo.c_str(), 0600), 0);
  EXPECT_EQ(mkfifo(go_fifo.c_str(), 0600), 0);
  // Opened read-write here, so that neither the target's opens nor these
  // block, whatever becomes of the target.
  const int pid_in = open(pid_fifo.c_str(), O_RDWR | O_CLOEXEC);
  const int go_out = open(go_fifo.c_str(), O_RDWR | O_CLOEXEC);
  argv.push_back(pid_fifo.string());
  argv.push_back(go_fifo.string());
  StoppedRun result;
  std::thread stopper([&] {
    pollfd ready{pid_in, POLLIN, 0};
    if (poll(&ready, 1, 60'000) != 1) return;  // the target never wrote: its run fails the test
    char text[32] = {};
    if (read(pid_in, text, sizeof text - 1) <= 0) return;
    const pid_t pid = static_cast<pid_t>(std::atol(text));
    if (pid <= 0) return;
    // The main thread blocked in its read, and a few readings of the
    // sampler since, so that it was seen blocked there before the stop.
    threads_reach(pid, 'S', true);
    std::this_thread::sleep_for(std::chrono::duration<double>(5 * kInterval));
    if (kill(pid, SIGSTOP) != 0) return;
    if (threads_reach(pid, 'T', false)) {
      const auto stopped_at = Clock::now();
      std::this_thread::sleep_for(std::chrono::duration<double>(kStopSeconds));  // the stop measured
      result.stopped = std::chrono::duration<double>(Clock::now() - stopped_at).count();
    }
    kill(pid, SIGCONT);
    // The sampler sees a stop at its first tick after it: a process that
    // ends before that tick (a loaded machine may run the sampling thread
    // late) ends with the stop unseen. A few intervals' run after the
    // stop, as a program continued with `fg` has.
    std::this_thread::sleep_for(std::chrono::duration<double>(5 * kInterval));
    EXPECT_EQ(write(go_out, "g", 1), 1);
  });
  result.run = run_process(argv, {{"LUMEN_TEST_TRUTH", (dir / "truth.json").string()}});
  stopper.join();
  close(pid_in);
  close(go_out);
  return result;
}

TEST(StatesJobControl, StopMatchesTheTimeTheProcessWasStopped) {
  const TempDir dir;
  const fs::path experiment = dir.path() / "run.er";
  const StoppedRun collected = run_stopped(
      {(bin_dir() / "collect").string(), "-o", "run.er", "-d", dir.path().string(), "-p", "on", LUMEN_STATES_STOP_TARGET},
      dir.path());
  ASSERT_EQ(collected.run.exit_code, 0) << collected.run.out << collected.run.err;
  ASSERT_GT(collected.stopped, kStopSeconds - 0.001) << "the target was not stopped";

  // Output and exit status as without collect, stopped the same way.
  const TempDir plain_dir;
  const StoppedRun plain = run_stopped({LUMEN_STATES_STOP_TARGET}, plain_dir.path());
  EXPECT_EQ(plain.run.exit_code, collected.run.exit_code);
  EXPECT_EQ(plain.run.out, collected.run.out);
  EXPECT_EQ(collected.run.out, "states_stop_target done\n");

  const auto rows =
      rows_by_name(er_print_json({"-metrics", "i.stop:name", "-functions"}, experiment));
  const double truth = collected.stopped;
  // One reading's resolution either side, and a few per cent for the
  // machine's noise: the stop is seen as the sampling thread's lateness.
  const double tolerance = 4 * kInterval + 0.05 * truth;
  for (const char* function : {"wait_for_go", "burn_until_go"}) {
    ASSERT_TRUE(rows.count(function)) << function << " has no row";
    EXPECT_NEAR(rows.at(function).at("i.stop").get<double>(), truth, tolerance) << function;
  }
  EXPECT_NEAR(rows.at("<Total>").at("i.stop").get<double>(), 2 * truth, 2 * tolerance);
}

}  // namespace
}  // namespace lumen::test
