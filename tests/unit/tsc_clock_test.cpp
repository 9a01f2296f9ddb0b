// The runtime's TSC clock against CLOCK_MONOTONIC itself: stamps taken on
// several threads and in a signal handler that interrupts them (drawings
// included) lie between clock_gettime readings taken around them, each
// thread's stamps go forward, and the lines are redrawn as time passes.
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "time/clock.h"
#include "time/tsc_clock.h"

namespace lumen::collector {
namespace {

// How far a stamp may stray from CLOCK_MONOTONIC: the rate's error over a
// line, some tens of nanoseconds here (bench/tsc_clock_accuracy), more
// where an anchor's reads were preempted four times over. A rate off by a
// thousandth, a wrong slot, scale or line is off by microseconds or more.
constexpr uint64_t kToleranceNs = 5'000;
// A thread's stamp may fall behind its previous one only where it extended
// a line another thread had just replaced (the runtime's now_ns keeps a
// floor for that): by the lines' difference over a moment.
constexpr uint64_t kBackwardNs = 1'000;

struct Bracketed {
  uint64_t stamps = 0;
  uint64_t outside = 0;       // stamps not within [before - tolerance, after + tolerance]
  uint64_t went_back = 0;     // stamps more than kBackwardNs behind the thread's previous one
  uint64_t worst_ns = 0;      // the farthest a stamp lay outside its bracket
};

void stamp_bracketed(Bracketed& out, uint64_t& previous) {
  const uint64_t before = monotonic_ns();
  const uint64_t stamp = tsc_now_ns();
  const uint64_t after = monotonic_ns();
  ++out.stamps;
  const uint64_t off = stamp + kToleranceNs < before ? before - stamp : stamp > after + kToleranceNs ? stamp - after : 0;
  if (off != 0) {
    ++out.outside;
    if (off > out.worst_ns) out.worst_ns = off;
  }
  if (stamp + kBackwardNs < previous) ++out.went_back;
  if (stamp > previous) previous = stamp;
}

Bracketed stamp_for(uint64_t duration_ns) {
  Bracketed result;
  uint64_t previous = 0;
  const uint64_t until = monotonic_ns() + duration_ns;
  while (monotonic_ns() < until) stamp_bracketed(result, previous);
  return result;
}

Bracketed g_handler_stamps;
uint64_t g_handler_previous = 0;
void stamp_in_handler(int) {
  const int saved = errno;
  stamp_bracketed(g_handler_stamps, g_handler_previous);
  errno = saved;
}

class TscClock : public testing::Test {
 protected:
  void SetUp() override {
    tsc_clock_init();
    if (!tsc_clock_report().tsc) GTEST_SKIP() << "no invariant TSC: every stamp is clock_gettime";
  }
};

TEST_F(TscClock, ThreadsStampsFollowClockMonotonicAndGoForward) {
  const uint64_t lines_before = tsc_clock_report().lines;
  std::vector<Bracketed> results(3);
  std::vector<std::thread> threads;
  for (Bracketed& result : results) threads.emplace_back([&result] { result = stamp_for(60'000'000); });
  for (std::thread& thread : threads) thread.join();
  for (const Bracketed& result : results) {
    EXPECT_GT(result.stamps, 1000u);
    EXPECT_EQ(result.outside, 0u) << "worst " << result.worst_ns << " ns outside CLOCK_MONOTONIC's bracket";
    EXPECT_EQ(result.went_back, 0u);
  }
  const TscClockReport report = tsc_clock_report();
  // 60 ms of stamps at a line a 2 ms period: some 30 lines drawn.
  EXPECT_GE(report.lines - lines_before, 10u);
  EXPECT_GT(report.ticks_per_ms, 0u);
}

// A handler that stamps over the thread's own stamps, drawings among them,
// never waits for them (a wait would hang the test past its timeout) and
// reads the same curve.
TEST_F(TscClock, AHandlerOverAStampOrADrawingStampsWithoutWaiting) {
  struct sigaction action {};
  action.sa_handler = stamp_in_handler;
  sigemptyset(&action.sa_mask);
  struct sigaction previous_action {};
  ASSERT_EQ(sigaction(SIGALRM, &action, &previous_action), 0);
  timer_t timer;
  sigevent event{};
  event.sigev_notify = SIGEV_SIGNAL;
  event.sigev_signo = SIGALRM;
  ASSERT_EQ(timer_create(CLOCK_MONOTONIC, &event, &timer), 0);
  itimerspec every{{0, 37'000}, {0, 37'000}};  // off the period's beat
  ASSERT_EQ(timer_settime(timer, 0, &every, nullptr), 0);
  const Bracketed own = stamp_for(100'000'000);
  timer_delete(timer);
  sigaction(SIGALRM, &previous_action, nullptr);
  EXPECT_GT(g_handler_stamps.stamps, 100u);
  EXPECT_EQ(g_handler_stamps.outside, 0u) << "worst " << g_handler_stamps.worst_ns << " ns";
  EXPECT_EQ(g_handler_stamps.went_back, 0u);
  EXPECT_EQ(own.outside, 0u) << "worst " << own.worst_ns << " ns";
}

// A forked child keeps the curve and draws its own lines on.
TEST_F(TscClock, AForkedChildDrawsOn) {
  stamp_for(5'000'000);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    tsc_clock_after_fork();
    const uint64_t lines_before = tsc_clock_report().lines;
    const Bracketed result = stamp_for(20'000'000);
    const bool good = result.outside == 0 && result.went_back == 0 && tsc_clock_report().lines > lines_before;
    _exit(good ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace lumen::collector
