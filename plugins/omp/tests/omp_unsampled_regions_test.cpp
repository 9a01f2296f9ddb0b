// What other plugins record inside parallel regions that no clock sample
// fell in, under GCC's libgomp and LLVM's libomp: omp_unsampled_regions_target
// runs 2,000 regions of a few microseconds whose bodies take a lock on both
// threads, under collect -p on -s all (every lock recorded, stamped with
// the runtime's clock). In user mode every lock, the worker's too,
// continues through the region's call into the function holding the
// construct and on to its callers; so does each region's implied
// end-of-region wait, and whatever the threads' waits there recorded. A
// region whose call site was recorded without its callers (or not at all)
// shows here as an edge smaller than the callee's inclusive count. The
// same holds for every traced allocation of the bodies (collect -H on).
#include <gtest/gtest.h>
#include <stdlib.h>

#include "lumen_commands.h"
#include "omp_test_rows.h"

namespace lumen::test {
namespace {

using nlohmann::json;

const OmpBuild kBuilds[] = {
    {"libgomp", LUMEN_OMP_UNSAMPLED_TARGET},
#ifdef LUMEN_OMP_UNSAMPLED_CLANG_TARGET
    {"libomp", LUMEN_OMP_UNSAMPLED_CLANG_TARGET},
#endif
};

class OmpUnsampledRegions : public testing::TestWithParam<OmpBuild> {};

constexpr const char* kMetrics = "a.syncn:i.syncn:a.omptwait:i.omptwait:name";

// -csingle FUNCTION in user mode: its row, and its caller `caller`'s (an
// empty one when it has no such caller).
struct Single {
  json row;
  json caller;
};

Single single_in_user_mode(const std::filesystem::path& experiment, const std::string& function,
                           const std::string& caller, const char* metrics = kMetrics) {
  const json view = er_print_json({"-viewmode", "user", "-metrics", metrics, "-csingle", function}, experiment);
  Single single{view.at("rows").at(0), json{{"name", caller}, {"values", json::object()}}};
  for (const json& row : single.row.at("callers"))
    if (row.at("name") == caller) single.caller = row;
  return single;
}

double metric(const json& row, const std::string& key) {
  const json& values = row.at("values");
  return values.contains(key) ? values.at(key).get<double>() : 0.0;
}

// The target under collect with `options`, its waiting threads asleep: the
// regions take little CPU time, and few clock samples fall in them.
Collection collect_with_passive_waits(const TempDir& dir, std::vector<std::string> options, const OmpBuild& build) {
  setenv("OMP_WAIT_POLICY", "passive", 1);
  Collection run = collect(dir, std::move(options), build.target);
  unsetenv("OMP_WAIT_POLICY");
  return run;
}

// Fails the test unless the run went as the target was written to run.
void expect_full_teams(const Collection& run) {
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  ASSERT_FALSE(run.truth.is_null());
  ASSERT_EQ(run.truth.at("smallest_team").get<int>(), 2) << "a region ran on fewer threads";
}

TEST_P(OmpUnsampledRegions, EveryRecordedLockAndWaitContinuesThroughTheRegionsCall) {
  TempDir dir;
  const Collection run = collect_with_passive_waits(dir, {"-p", "on", "-s", "all"}, GetParam());
  ASSERT_NO_FATAL_FAILURE(expect_full_teams(run));
  const double regions = run.truth.at("regions").get<double>();
  const double locks = run.truth.at("locks").get<double>();
  ASSERT_EQ(locks, 2 * regions);

  // Every lock of the bodies, on both threads, came through the function
  // holding the construct (the worker's stitched under the region's call).
  const Single lock = single_in_user_mode(run.experiment, "lock_in_body", "allocating_regions");
  EXPECT_EQ(metric(lock.row, "i.syncn"), locks) << lock.row.dump();
  EXPECT_EQ(metric(lock.caller, "a.syncn"), locks) << lock.row.dump();
  // Everything under that function, the implied waits at the regions'
  // ends too, came through its caller, and that through main.
  const Single regions_function = single_in_user_mode(run.experiment, "allocating_regions", "caller_of_regions");
  EXPECT_GT(metric(regions_function.row, "i.omptwait"), 0.0);
  for (const char* key : {"syncn", "omptwait"})
    EXPECT_EQ(metric(regions_function.caller, std::string("a.") + key),
              metric(regions_function.row, std::string("i.") + key))
        << key << ": " << regions_function.row.dump();
  const Single caller = single_in_user_mode(run.experiment, "caller_of_regions", "main");
  for (const char* key : {"syncn", "omptwait"})
    EXPECT_EQ(metric(caller.caller, std::string("a.") + key), metric(regions_function.row, std::string("i.") + key))
        << key << ": " << caller.row.dump();

  // -omp_preg: one construct holding every region.
  const json preg = er_print_json({"-omp_preg"}, run.experiment);
  ASSERT_EQ(preg.at("tables").size(), 1u) << preg.dump();
  EXPECT_EQ(preg.at("summary").at("regions").get<double>(), regions);
  const auto sites = rows_by_construct_function(preg.at("tables")[0]);
  ASSERT_EQ(sites.size(), 1u) << preg.dump();
  ASSERT_TRUE(sites.count("allocating_regions")) << preg.dump();
  EXPECT_EQ(sites.at("allocating_regions").at("count").get<double>(), regions);
}

// Heap tracing stamps its events with a coarser clock of its own, which a
// task's begin (the runtime's clock) must never follow: an allocation
// early in a worker's task would otherwise fall in its idle time before
// the task, where nothing continues it with the region's call.
TEST_P(OmpUnsampledRegions, EveryTracedAllocationContinuesThroughTheRegionsCall) {
  TempDir dir;
  const Collection run = collect_with_passive_waits(dir, {"-p", "on", "-H", "on"}, GetParam());
  ASSERT_NO_FATAL_FAILURE(expect_full_teams(run));
  const double allocations = run.truth.at("allocations").get<double>();
  ASSERT_EQ(allocations, 2 * run.truth.at("regions").get<double>());
  const char* metrics = "a.heapalloccnt:i.heapalloccnt:name";
  const Single allocation = single_in_user_mode(run.experiment, "allocate_in_body", "allocating_regions", metrics);
  EXPECT_EQ(metric(allocation.row, "i.heapalloccnt"), allocations) << allocation.row.dump();
  EXPECT_EQ(metric(allocation.caller, "a.heapalloccnt"), allocations) << allocation.row.dump();
  const Single caller = single_in_user_mode(run.experiment, "caller_of_regions", "main", metrics);
  const Single regions_function = single_in_user_mode(run.experiment, "allocating_regions", "caller_of_regions", metrics);
  EXPECT_EQ(metric(regions_function.caller, "a.heapalloccnt"), metric(regions_function.row, "i.heapalloccnt"))
      << regions_function.row.dump();
  EXPECT_EQ(metric(caller.caller, "a.heapalloccnt"), metric(regions_function.row, "i.heapalloccnt"))
      << caller.row.dump();
}

INSTANTIATE_TEST_SUITE_P(Runtimes, OmpUnsampledRegions, testing::ValuesIn(kBuilds),
                         [](const testing::TestParamInfo<OmpBuild>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace lumen::test
