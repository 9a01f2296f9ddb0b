// Clock samples classified by an OMPT runtime's thread state (omp_states.h,
// omp_view_modes.h), on records written by hand: each state record's
// window holds its own delivery's sample and no other sample of its
// thread; each state means work, overhead, a wait of a kind or idle; and
// the view modes show a state's artificial function at its sample, under
// the region's call inside a wait the trace implies.
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

TEST(OmpStates, ViewModesShowEachSamplesOwnState) {
  OmpTrace trace;
  // Region 1 [1000, 50000] called at stack 77: worker 11's task ends at
  // 20000, so the trace implies its wait until 50000 and its idle time
  // after.
  OmpRegion region{};
  region.region_id = 1;
  region.call_stack_id = 77;
  region.body = 0x401000;
  region.begin_ns = 1000;
  region.end_ns = 50000;
  region.thread_id = 10;
  ASSERT_TRUE(trace.add(kRegionRecord, &region, sizeof region));
  const OmpTask master{1, 1000, 50000, 10, 0}, worker{1, 1000, 20000, 11, 1};
  ASSERT_TRUE(trace.add(kTaskRecord, &master, sizeof master));
  ASSERT_TRUE(trace.add(kTaskRecord, &worker, sizeof worker));
  const OmpProcessEnd end{900000};
  ASSERT_TRUE(trace.add(kProcessEndRecord, &end, sizeof end));
  // The worker's samples: at work, at a lock, then in the region's end
  // barrier, then idle; the master's: at work, in the runtime's overhead.
  add_state(trace, 5000, 11, kWorkParallel);
  add_state(trace, 15000, 11, kWaitLock);
  add_state(trace, 30000, 11, kBarrierImplicitParallel);
  add_state(trace, 45000, 11, kWorkParallel);
  add_state(trace, 600000, 11, kIdle);
  add_state(trace, 6000, 10, kWorkParallel);
  add_state(trace, 40000, 10, kOverhead);
  // libomp's generic barrier state, in a traced explicit barrier.
  add_state(trace, 8000, 10, 0x010);
  OmpWait barrier{};
  barrier.region_id = 1;
  barrier.begin_ns = 7000;
  barrier.end_ns = 9000;
  barrier.stack_id = 78;
  barrier.thread_id = 10;
  barrier.kind = static_cast<uint16_t>(WaitKind::kExplicitBarrier);
  const std::vector<OmpWait> recorded_waits{barrier};
  const std::vector<OmpWait> implied = trace.implied_waits();
  const std::vector<StateWindow> windows = state_windows(trace);
  Recorded recorded;
  lumen_event_sink sink{};
  sink.context = &recorded;
  sink.stitch = record_stitch;
  declare_stitches(trace, recorded_waits, implied, windows, &sink);

  std::string leaf;
  // Work: only the task's own stitch (its body continued with stack 77).
  const lumen_stitch* s = innermost(recorded, 11, 5002, &leaf);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->anchor_pc, 0x401000u);
  EXPECT_EQ(s->parent_stack_id, 77u);
  // The lock wait: its function above the sample's own frames.
  s = innermost(recorded, 11, 15002, &leaf);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->anchor_pc, LUMEN_STITCH_KEEP_FRAMES);
  EXPECT_EQ(leaf, "<OMP-lock_wait>");
  // The end barrier, which the trace implies: under the region's call.
  s = innermost(recorded, 11, 30002, &leaf);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->anchor_pc, 0u);
  EXPECT_EQ(s->parent_stack_id, 77u);
  EXPECT_EQ(leaf, "<OMP-implicit_barrier>");
  // Idle after the region: <OMP-idle> on its own.
  s = innermost(recorded, 11, 600002, &leaf);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->anchor_pc, 0u);
  EXPECT_EQ(s->parent_stack_id, LUMEN_NO_STACK);
  EXPECT_EQ(leaf, "<OMP-idle>");
  // A generic barrier state is the traced barrier's kind.
  s = innermost(recorded, 10, 8002, &leaf);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->anchor_pc, LUMEN_STITCH_KEEP_FRAMES);
  EXPECT_EQ(leaf, "<OMP-explicit_barrier>");
  // Overhead on the master: above its frames.
  s = innermost(recorded, 10, 40002, &leaf);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->anchor_pc, LUMEN_STITCH_KEEP_FRAMES);
  EXPECT_EQ(leaf, "<OMP-overhead>");
  // A sample the runtime said was work, though the trace implies a wait
  // there: its own frames.
  EXPECT_EQ(innermost(recorded, 11, 45002, &leaf), nullptr);
  // Between samples, the trace's waits as without states: what other
  // plugins sample of the idle worker is <OMP-idle>.
  s = innermost(recorded, 11, 400000, &leaf);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->anchor_pc, 0u);
  EXPECT_EQ(leaf, "<OMP-idle>");
  s = innermost(recorded, 11, 35000, &leaf);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->parent_stack_id, 77u);
  EXPECT_EQ(leaf, "<OMP-implicit_barrier>");
}

}  // namespace
}  // namespace lumen::omp
