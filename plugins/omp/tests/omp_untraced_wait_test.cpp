// Under LLVM libomp, what the runtime's thread state adds to the trace:
// omp_exit_in_region_target ends the process inside a region while its
// other thread spins for a lock (OMP_WAIT_POLICY=active), so no callback
// ever reports that wait's end and the trace has no record of it. Each
// clock sample's OMPT state (wait_lock) still makes those samples ompwait
// under <OMP-lock_wait>, as long as the program measured that wait; the
// holder's work stays work. CPU time only (-states off), as the program
// measures it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "lumen_commands.h"
#include "omp_test_rows.h"

namespace lumen::test {
namespace {

using nlohmann::json;

TEST(OmpUntracedWait, TheRuntimesStateClassifiesAWaitTheTraceNeverSawEnd) {
  setenv("OMP_WAIT_POLICY", "active", 1);
  TempDir dir;
  const Collection run = collect(dir, {"-p", "on", "-states", "off"}, LUMEN_OMP_EXIT_CLANG_TARGET);
  unsetenv("OMP_WAIT_POLICY");
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  ASSERT_FALSE(run.truth.is_null());
  const double lock_wait = run.truth.at("lock_wait").get<double>();
  const double held = run.truth.at("held_work").get<double>();

  // The trace saw no end of the waiter's lock wait: its traced lock wait
  // time is the holder's own uncontended acquire, well under a sample.
  const auto traced = rows_by_name(
      er_print_json({"-metrics", "e.omptwait:name", "-functions"}, run.experiment));
  EXPECT_LT(value(traced, "<OMP-lock_wait>", "e.omptwait"), kClockInterval);

  // The runtime said wait_lock at the waiter's samples (the holder works
  // until the waiter has spun 0.4 s, unless 10 s pass first).
  const json states = er_print_json({"-omp_states"}, run.experiment);
  ASSERT_EQ(states.at("tables").size(), 1u) << states.dump();
  const auto by_state = rows_by_name(states.at("tables")[0]);
  if (lock_wait > 4 * kClockInterval) {
    EXPECT_TRUE(by_state.count("wait_lock")) << states.dump();
  }

  const auto rows = rows_by_name(er_print_json(
      {"-viewmode", "user", "-metrics", "e.totalcpu:i.totalcpu:e.ompwork:i.ompwork:e.ompwait:i.ompwait:name",
       "-functions"},
      run.experiment));
  // A few samples after the holder read the waiter's clock, while the
  // process ends, and the holder's short wait at the barrier.
  const double after = 3 * kClockInterval;
  EXPECT_NEAR(value(rows, "<OMP-lock_wait>", "e.totalcpu"), lock_wait,
              sampling_tolerance(lock_wait, kClockInterval) + after);
  EXPECT_NEAR(value(rows, "<OMP-lock_wait>", "e.ompwait"), value(rows, "<OMP-lock_wait>", "e.totalcpu"), 1e-6);
  EXPECT_NEAR(value(rows, "<Total>", "e.ompwait"), lock_wait, sampling_tolerance(lock_wait, kClockInterval) + after);
  // The holder's work is work. (The region never ended, so the trace
  // has no region to stitch the waiter's stack under.)
  EXPECT_NEAR(value(rows, "held_work", "i.ompwork"), held, sampling_tolerance(held, kClockInterval));
  EXPECT_EQ(value(rows, "held_work", "i.ompwait"), 0.0);
}

}  // namespace
}  // namespace lumen::test
