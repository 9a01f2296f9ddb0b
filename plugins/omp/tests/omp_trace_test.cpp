// The waits an OpenMP trace implies (omp_trace.h), on records written by
// hand: each thread's wait from its task's end to its region's end, and a
// worker's idle time between the regions it works for and after the last.
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "../analysis/omp_trace.h"
#include "../omp_short_records.h"

namespace lumen::omp {
namespace {

void add_region(OmpTrace& trace, uint64_t id, uint64_t begin, uint64_t end, uint32_t thread) {
  OmpRegion region{};
  region.region_id = id;
  region.begin_ns = begin;
  region.end_ns = end;
  region.thread_id = thread;
  ASSERT_TRUE(trace.add(kRegionRecord, &region, sizeof region));
}

void add_task(OmpTrace& trace, uint64_t region, uint64_t begin, uint64_t end, uint32_t thread, uint32_t num) {
  const OmpTask task{region, begin, end, thread, num};
  ASSERT_TRUE(trace.add(kTaskRecord, &task, sizeof task));
}

TEST(OmpTrace, ImpliedWaitsOfTwoRegions) {
  OmpTrace trace;
  // Region 1 [100, 500]: master 10 works until 200, worker 11 until 500.
  add_region(trace, 1, 100, 500, 10);
  add_task(trace, 1, 110, 200, 10, 0);
  add_task(trace, 1, 120, 500, 11, 1);
  // Region 2 [800, 1000]: the worker ends first.
  add_region(trace, 2, 800, 1000, 10);
  add_task(trace, 2, 810, 1000, 10, 0);
  add_task(trace, 2, 820, 900, 11, 1);
  const OmpProcessEnd end{1500};
  ASSERT_TRUE(trace.add(kProcessEndRecord, &end, sizeof end));

  std::vector<OmpWait> waits = trace.implied_waits();
  std::sort(waits.begin(), waits.end(), [](const OmpWait& a, const OmpWait& b) {
    return std::tie(a.thread_id, a.begin_ns) < std::tie(b.thread_id, b.begin_ns);
  });
  ASSERT_EQ(waits.size(), 4u);
  auto expect = [](const OmpWait& w, uint32_t thread, WaitKind kind, uint64_t begin, uint64_t end) {
    EXPECT_EQ(w.thread_id, thread);
    EXPECT_EQ(w.kind, static_cast<uint16_t>(kind));
    EXPECT_EQ(w.begin_ns, begin);
    EXPECT_EQ(w.end_ns, end);
    EXPECT_EQ(w.stack_id, LUMEN_NO_STACK);
  };
  expect(waits[0], 10, WaitKind::kImplicitBarrier, 200, 500);
  expect(waits[1], 11, WaitKind::kIdle, 500, 820);
  expect(waits[2], 11, WaitKind::kImplicitBarrier, 900, 1000);
  expect(waits[3], 11, WaitKind::kIdle, 1000, 1500);
}

// The OMPT callbacks write a region and its encountering thread's task in
// one record: read back as the two records it stands for.
TEST(OmpTrace, RegionWithItsEncounteringThreadsTaskIsTwoRecords) {
  OmpTrace trace;
  OmpRegionTask both{};
  both.region.region_id = 4;
  both.region.begin_ns = 1000;
  both.region.end_ns = 1500;
  both.region.thread_id = 10;
  both.task_begin_offset_ns = 5;
  both.task_end_offset_ns = 300;
  ASSERT_TRUE(trace.add(kRegionTaskRecord, &both, sizeof both));
  add_task(trace, 4, 1010, 1500, 11, 1);
  ASSERT_EQ(trace.regions.size(), 1u);
  EXPECT_EQ(trace.regions[0].region_id, 4u);
  EXPECT_EQ(trace.regions[0].end_ns, 1500u);
  ASSERT_EQ(trace.tasks.size(), 2u);
  EXPECT_EQ(trace.tasks[0].region_id, 4u);
  EXPECT_EQ(trace.tasks[0].begin_ns, 1005u);
  EXPECT_EQ(trace.tasks[0].end_ns, 1300u);
  EXPECT_EQ(trace.tasks[0].thread_id, 10u);
  EXPECT_EQ(trace.tasks[0].thread_num, 0u);
  const std::vector<OmpWait> waits = trace.implied_waits();
  ASSERT_EQ(waits.size(), 1u);  // the master's barrier from its task's end
  EXPECT_EQ(waits[0].thread_id, 10u);
  EXPECT_EQ(waits[0].begin_ns, 1300u);
  EXPECT_EQ(waits[0].end_ns, 1500u);

  // A task said to end after its region, or to end before it began, is damage.
  both.task_end_offset_ns = 501;
  EXPECT_FALSE(trace.add(kRegionTaskRecord, &both, sizeof both));
  both.task_end_offset_ns = 4;
  EXPECT_FALSE(trace.add(kRegionTaskRecord, &both, sizeof both));
  EXPECT_FALSE(trace.add(kRegionTaskRecord, &both, sizeof both - 1));
  EXPECT_EQ(trace.regions.size(), 1u);
}

// The writer's short forms read back as the long ones they stand for;
// values that do not fit keep the long form.
TEST(OmpTrace, ShortRecordsReadBackAsTheLongOnes) {
  const uint64_t process = uint64_t{4321} << 32;
  OmpRegionTask both{};
  both.region = OmpRegion{process | 9, process | 7, 0xabcdef, 0x401000, 5'000'000'000, 5'000'002'000, 10, 3, 4, 0};
  both.task_begin_offset_ns = 40;
  both.task_end_offset_ns = 1900;
  OmpShortRegionTask short_region;
  ASSERT_TRUE(shorten(both, &short_region));
  OmpTask task{process | 9, 5'000'000'100, 5'000'001'950, 11, 2};
  OmpShortTask short_task;
  ASSERT_TRUE(shorten(task, &short_task));

  OmpTrace trace;
  ASSERT_TRUE(trace.add(kShortRegionTaskRecord, &short_region, sizeof short_region));
  ASSERT_TRUE(trace.add(kShortTaskRecord, &short_task, sizeof short_task));
  ASSERT_EQ(trace.regions.size(), 1u);
  const OmpRegion& region = trace.regions[0];
  EXPECT_EQ(std::tie(region.region_id, region.parent_region_id, region.call_stack_id, region.body),
            std::tie(both.region.region_id, both.region.parent_region_id, both.region.call_stack_id,
                     both.region.body));
  EXPECT_EQ(std::tie(region.begin_ns, region.end_ns, region.thread_id, region.team_size, region.requested_threads),
            std::tie(both.region.begin_ns, both.region.end_ns, both.region.thread_id, both.region.team_size,
                     both.region.requested_threads));
  ASSERT_EQ(trace.tasks.size(), 2u);
  EXPECT_EQ(std::tie(trace.tasks[0].begin_ns, trace.tasks[0].end_ns, trace.tasks[0].thread_num),
            std::make_tuple(uint64_t{5'000'000'040}, uint64_t{5'000'001'900}, uint32_t{0}));
  EXPECT_EQ(std::tie(trace.tasks[1].region_id, trace.tasks[1].begin_ns, trace.tasks[1].end_ns,
                     trace.tasks[1].thread_id, trace.tasks[1].thread_num),
            std::tie(task.region_id, task.begin_ns, task.end_ns, task.thread_id, task.thread_num));
  EXPECT_FALSE(trace.add(kShortRegionTaskRecord, &short_region, sizeof short_region - 1));
  EXPECT_FALSE(trace.add(kShortTaskRecord, &short_task, sizeof short_task - 1));

  // No parent reads back as none.
  both.region.parent_region_id = 0;
  ASSERT_TRUE(shorten(both, &short_region));
  EXPECT_EQ(lengthen(short_region).region.parent_region_id, 0u);

  // What does not fit: a region of more than 4.29 s, a parent of another
  // process, a team of more than 65,535, a task of more than 4.29 s.
  OmpRegionTask long_region = both;
  long_region.region.end_ns = long_region.region.begin_ns + (uint64_t{1} << 32);
  EXPECT_FALSE(shorten(long_region, &short_region));
  OmpRegionTask foreign_parent = both;
  foreign_parent.region.parent_region_id = (uint64_t{99} << 32) | 7;
  EXPECT_FALSE(shorten(foreign_parent, &short_region));
  OmpRegionTask big_team = both;
  big_team.region.team_size = 70'000;
  EXPECT_FALSE(shorten(big_team, &short_region));
  task.end_ns = task.begin_ns + (uint64_t{1} << 32);
  EXPECT_FALSE(shorten(task, &short_task));
}

TEST(OmpTrace, TaskOfARegionThatNeverEndedImpliesNothing) {
  OmpTrace trace;
  add_task(trace, 7, 10, 20, 11, 1);
  EXPECT_TRUE(trace.implied_waits().empty());
}

TEST(OmpTrace, ShortRecordIsRefused) {
  OmpTrace trace;
  const char bytes[8] = {};
  EXPECT_FALSE(trace.add(kRegionRecord, bytes, sizeof bytes));
  EXPECT_FALSE(trace.add(kTaskRecord, bytes, sizeof bytes));
  EXPECT_FALSE(trace.add(kWaitRecord, bytes, sizeof bytes));
  EXPECT_TRUE(trace.add(99, bytes, sizeof bytes));  // a newer kind: skipped
}

// A thread runs explicit tasks inside its waits (a barrier, a taskwait):
// that time is the tasks' work, so the waits are cut around it.
TEST(OmpTrace, ExplicitTasksAreCutOutOfTheirThreadsWaits) {
  OmpTrace trace;
  for (const auto& [begin, end, thread] : {std::tuple{200, 300, 11}, std::tuple{350, 600, 11}, std::tuple{250, 260, 10}}) {
    OmpExplicitTask task{};
    task.begin_ns = begin;
    task.end_ns = end;
    task.thread_id = thread;
    ASSERT_TRUE(trace.add(kExplicitTaskRecord, &task, sizeof task));
  }
  OmpWait wait{};
  wait.thread_id = 11;
  wait.begin_ns = 100;
  wait.end_ns = 500;
  const std::vector<OmpWait> pieces = trace.outside_explicit_tasks({wait});
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_EQ(std::tie(pieces[0].begin_ns, pieces[0].end_ns), std::tuple(100u, 200u));
  EXPECT_EQ(std::tie(pieces[1].begin_ns, pieces[1].end_ns), std::tuple(300u, 350u));
  EXPECT_EQ(pieces[1].thread_id, 11u);
  // A wait wholly inside a task leaves nothing; another thread's is whole.
  wait.begin_ns = 400;
  wait.end_ns = 450;
  EXPECT_TRUE(trace.outside_explicit_tasks({wait}).empty());
  wait.thread_id = 12;
  EXPECT_EQ(trace.outside_explicit_tasks({wait}).size(), 1u);
}

}  // namespace
}  // namespace lumen::omp
