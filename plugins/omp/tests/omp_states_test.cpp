// Clock samples classified by an OMPT runtime's thread state (omp_states.h,
// omp_view_modes.h), on records written by hand: each state record's
// window holds its own delivery's sample and no other sample of its
// thread; each state means work, overhead, a wait of a kind or idle; the
// trace's waits decide the samples they cover and the state the others;
// and the view modes show a state's artificial function at its sample.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../analysis/omp_states.h"
#include "../analysis/omp_view_modes.h"

namespace lumen::omp {
namespace {

constexpr uint32_t kWorkParallel = 0x001, kBarrierImplicitParallel = 0x011, kBarrierExplicit = 0x014,
                   kWaitLock = 0x041, kWaitCritical = 0x042, kIdle = 0x100, kOverhead = 0x101;

void add_state(OmpTrace& trace, uint64_t time, uint32_t thread, uint32_t state) {
  const OmpState record{time, 0, state, thread};
  ASSERT_TRUE(trace.add(kStateRecord, &record, sizeof record));
}

TEST(OmpStates, EachStateMeansWorkOverheadOrAWaitOfAKind) {
  EXPECT_EQ(state_meaning(kWorkParallel).state_class, StateClass::kWork);
  EXPECT_EQ(state_meaning(kWorkParallel).function, nullptr);
  EXPECT_EQ(state_meaning(0x000).state_class, StateClass::kWork);
  EXPECT_EQ(state_meaning(0x102).state_class, StateClass::kWork);  // undefined: not an OpenMP thread
  EXPECT_EQ(state_meaning(kOverhead).state_class, StateClass::kOverhead);
  EXPECT_STREQ(state_meaning(kOverhead).function, "<OMP-overhead>");
  EXPECT_EQ(state_meaning(kIdle).state_class, StateClass::kIdle);
  EXPECT_STREQ(state_meaning(kIdle).function, "<OMP-idle>");
  const std::pair<uint32_t, const char*> waits[] = {{0x010, "<OMP-implicit_barrier>"},
                                                    {kBarrierImplicitParallel, "<OMP-implicit_barrier>"},
                                                    {0x012, "<OMP-implicit_barrier>"},
                                                    {0x013, "<OMP-implicit_barrier>"},
                                                    {kBarrierExplicit, "<OMP-explicit_barrier>"},
                                                    {0x020, "<OMP-taskwait>"},
                                                    {0x021, "<OMP-taskwait>"},
                                                    {0x040, "<OMP-lock_wait>"},
                                                    {kWaitLock, "<OMP-lock_wait>"},
                                                    {kWaitCritical, "<OMP-critical_section_wait>"},
                                                    {0x043, "<OMP-atomic_wait>"},
                                                    {0x044, "<OMP-ordered_section_wait>"}};
  for (const auto& [state, function] : waits) {
    EXPECT_EQ(state_meaning(state).state_class, StateClass::kWait) << state_name(state);
    EXPECT_STREQ(state_meaning(state).function, function) << state_name(state);
  }
  // A reduction is work, shown as Oracle's <OMP-reduction>.
  EXPECT_EQ(state_meaning(0x002).state_class, StateClass::kWork);
  EXPECT_STREQ(state_meaning(0x002).function, "<OMP-reduction>");
}

TEST(OmpStates, EachWindowRunsToItsThreadsNextState) {
  OmpTrace trace;
  // Records of two threads, interleaved and out of order, as per-thread
  // blocks deliver them.
  add_state(trace, 3000, 11, kWaitLock);
  add_state(trace, 1000, 10, kWorkParallel);
  add_state(trace, 2000, 11, kWorkParallel);
  add_state(trace, 4000, 10, kBarrierExplicit);
  add_state(trace, 2500, 10, kIdle);
  const OmpProcessEnd end{9000000};
  ASSERT_TRUE(trace.add(kProcessEndRecord, &end, sizeof end));
  const std::vector<StateWindow> windows = state_windows(trace);
  ASSERT_EQ(windows.size(), 5u);
  const auto expect = [&](size_t i, uint32_t thread, uint32_t state, uint64_t begin, uint64_t end_ns) {
    EXPECT_EQ(windows[i].thread_id, thread) << i;
    EXPECT_EQ(windows[i].state, state) << i;
    EXPECT_EQ(windows[i].begin_ns, begin) << i;
    EXPECT_EQ(windows[i].end_ns, end_ns) << i;
  };
  expect(0, 10, kWorkParallel, 1000, 2500);
  expect(1, 10, kIdle, 2500, 4000);
  expect(2, 10, kBarrierExplicit, 4000, 9000000);  // the last: to the end of collection
  expect(3, 11, kWorkParallel, 2000, 3000);
  expect(4, 11, kWaitLock, 3000, 9000000);
}

TEST(OmpStates, LastWindowOfATraceWithoutAnEndStillHoldsItsSample) {
  OmpTrace trace;
  add_state(trace, 5000, 10, kWaitLock);
  const std::vector<StateWindow> windows = state_windows(trace);
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_GT(windows[0].end_ns, 5000u + 100'000u);  // a delivery's sample is microseconds after its state
}

struct Recorded {
  std::vector<lumen_stitch> stitches;
  std::vector<std::string> leaves;
};

void record_stitch(void* context, const lumen_stitch* stitch) {
  auto* recorded = static_cast<Recorded*>(context);
  recorded->stitches.push_back(*stitch);
  recorded->leaves.push_back(stitch->leaf != nullptr ? stitch->leaf : "");
}

// The stitch that shows an event of `thread` at `time` first (the latest
// begin, then the shortest), or none.
const lumen_stitch* innermost(const Recorded& recorded, uint32_t thread, uint64_t time, std::string* leaf) {
  const lumen_stitch* best = nullptr;
  for (size_t i = 0; i < recorded.stitches.size(); ++i) {
    const lumen_stitch& s = recorded.stitches[i];
    if (s.thread_id != thread || time < s.begin_ns || time >= s.end_ns) continue;
    if (best == nullptr || s.begin_ns > best->begin_ns ||
        (s.begin_ns == best->begin_ns && s.end_ns < best->end_ns)) {
      best = &s;
      *leaf = recorded.leaves[i];
    }
  }
  return best;
}

// A worker of region 1 [1000, 50000] (called at stack 77) whose task ends
// at 20000: the trace implies its wait at the region's end until 50000 and
// its idle time after; a lock wait of the master's is recorded.
struct TracedRegion {
  OmpTrace trace;
  std::vector<OmpWait> recorded;
  TracedRegion() {
    OmpRegion region{};
    region.region_id = 1;
    region.call_stack_id = 77;
    region.body = 0x401000;
    region.begin_ns = 1000;
    region.end_ns = 50000;
    region.thread_id = 10;
    EXPECT_TRUE(trace.add(kRegionRecord, &region, sizeof region));
    const OmpTask master{1, 1000, 50000, 10, 0}, worker{1, 1000, 20000, 11, 1};
    EXPECT_TRUE(trace.add(kTaskRecord, &master, sizeof master));
    EXPECT_TRUE(trace.add(kTaskRecord, &worker, sizeof worker));
    const OmpProcessEnd end{900000};
    EXPECT_TRUE(trace.add(kProcessEndRecord, &end, sizeof end));
    OmpWait critical{};
    critical.region_id = 1;
    critical.begin_ns = 7000;
    critical.end_ns = 9000;
    critical.stack_id = 78;
    critical.thread_id = 10;
    critical.kind = static_cast<uint16_t>(WaitKind::kCritical);
    recorded.push_back(critical);
  }
};

TEST(OmpStates, TheTraceDecidesTheSamplesItsWaitsCover) {
  TracedRegion region;
  // libomp 14's states where the trace knows better: a critical section's
  // wait said as a lock's, the idle worker said to be in a barrier, work
  // said inside the end barrier.
  add_state(region.trace, 8000, 10, kWaitLock);
  add_state(region.trace, 600000, 11, 0x013);
  add_state(region.trace, 30000, 11, kWorkParallel);
  // Where the trace has no wait: a lock wait, overhead, idle, and work.
  add_state(region.trace, 12000, 10, kWaitLock);
  add_state(region.trace, 40000, 10, kOverhead);
  add_state(region.trace, 5000, 11, kIdle);
  add_state(region.trace, 6000, 11, kWorkParallel);
  const std::vector<StateWindow> untraced =
      untraced_windows(state_windows(region.trace), TraceWaits(region.recorded, region.trace.implied_waits()));
  ASSERT_EQ(untraced.size(), 3u);
  // The master's lock wait runs to its next state; its overhead past the end.
  EXPECT_EQ(untraced[0].thread_id, 10u);
  EXPECT_EQ(untraced[0].state, kWaitLock);
  EXPECT_EQ(untraced[0].begin_ns, 12000u);
  EXPECT_EQ(untraced[0].end_ns, 40000u);
  EXPECT_EQ(untraced[1].state, kOverhead);
  EXPECT_EQ(untraced[1].end_ns, 40000u + 1000000u);  // the last window: at least a delivery long
  // The worker's idle state, before any wait of the trace: to its next state.
  EXPECT_EQ(untraced[2].thread_id, 11u);
  EXPECT_EQ(untraced[2].state, kIdle);
  EXPECT_EQ(untraced[2].begin_ns, 5000u);
  EXPECT_EQ(untraced[2].end_ns, 6000u);
}

TEST(OmpStates, AWindowTheStateDecidesEndsWhereTheTracesNextWaitBegins) {
  TracedRegion region;
  // The worker's lock wait at 15000, then no state until its idle time:
  // the window stops where the implied barrier begins (20000).
  add_state(region.trace, 15000, 11, kWaitLock);
  add_state(region.trace, 700000, 11, kWorkParallel);
  const std::vector<StateWindow> untraced =
      untraced_windows(state_windows(region.trace), TraceWaits(region.recorded, region.trace.implied_waits()));
  ASSERT_EQ(untraced.size(), 1u);
  EXPECT_EQ(untraced[0].begin_ns, 15000u);
  EXPECT_EQ(untraced[0].end_ns, 20000u);
}

TEST(OmpStates, ViewModesShowTheStatesFunctionWhereTheTraceHasNone) {
  TracedRegion region;
  add_state(region.trace, 8000, 10, kWaitLock);   // in the traced critical wait
  add_state(region.trace, 12000, 10, kWaitLock);  // outside any wait of the trace
  add_state(region.trace, 200000, 10, kOverhead);
  const std::vector<OmpWait> implied = region.trace.implied_waits();
  const std::vector<StateWindow> untraced =
      untraced_windows(state_windows(region.trace), TraceWaits(region.recorded, implied));
  Recorded recorded;
  lumen_event_sink sink{};
  sink.size = sizeof sink;
  sink.context = &recorded;
  sink.stitch = record_stitch;
  declare_stitches(region.trace, region.recorded, implied, untraced, &sink);

  std::string leaf;
  // The traced critical wait keeps its kind.
  const lumen_stitch* s = innermost(recorded, 10, 8002, &leaf);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->anchor_pc, LUMEN_STITCH_KEEP_FRAMES);
  EXPECT_EQ(leaf, "<OMP-critical_section_wait>");
  // The untraced lock wait and the overhead: above the sample's frames,
  // over a short stretch after the state.
  s = innermost(recorded, 10, 12002, &leaf);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->anchor_pc, LUMEN_STITCH_KEEP_FRAMES);
  EXPECT_EQ(leaf, "<OMP-lock_wait>");
  EXPECT_EQ(s->end_ns, 12000u + 50000u);
  s = innermost(recorded, 10, 200002, &leaf);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(leaf, "<OMP-overhead>");
  // Later in the lock window, what other plugins record keeps its frames.
  EXPECT_EQ(innermost(recorded, 10, 100000, &leaf), nullptr);
  // The worker's idle time, which the trace implies, is <OMP-idle>.
  s = innermost(recorded, 11, 600002, &leaf);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(leaf, "<OMP-idle>");
}

}  // namespace
}  // namespace lumen::omp
