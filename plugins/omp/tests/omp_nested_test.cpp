// Regions nested three levels deep, under GCC's libgomp and LLVM's libomp:
// omp_nested_target's level1 starts a region whose threads each call
// level2, whose threads each call level3 (2, 4 and 8 threads), each thread
// measuring its own work at its level. In user mode every thread's stack
// continues through every level's call: each level's function holds its
// own work and every level below it, on whichever thread it ran.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "lumen_commands.h"
#include "omp_test_rows.h"

namespace lumen::test {
namespace {

using nlohmann::json;

const OmpBuild kNestedBuilds[] = {
    {"libgomp", LUMEN_OMP_NESTED_TARGET},
#ifdef LUMEN_OMP_NESTED_CLANG_TARGET
    {"libomp", LUMEN_OMP_NESTED_CLANG_TARGET},
#endif
};

class OmpNested : public testing::TestWithParam<OmpBuild> {};

TEST_P(OmpNested, EachLevelsFunctionHoldsItsWorkAndEveryLevelBelow) {
  // Waiting threads sleep: each function's time is its levels' work.
  setenv("OMP_WAIT_POLICY", "passive", 1);
  TempDir dir;
  const Collection run = collect(dir, {"-p", "on"}, GetParam().target);
  unsetenv("OMP_WAIT_POLICY");
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  ASSERT_FALSE(run.truth.is_null());
  EXPECT_EQ(run.truth.at("threads"), json::parse("[2, 4, 8]")) << "the runtime did not nest every level";
  const auto rows = rows_by_name(
      er_print_json({"-viewmode", "user", "-metrics", "i.totalcpu:name", "-functions"}, run.experiment));
  double below = 0;
  for (const char* level : {"level3", "level2", "level1"}) {
    below += run.truth.at(level).get<double>();
    EXPECT_NEAR(value(rows, level, "i.totalcpu"), below, sampling_tolerance(below, kClockInterval)) << level;
  }
  // Every level's work is under main.
  EXPECT_NEAR(value(rows, "main", "i.totalcpu"), value(rows, "level1", "i.totalcpu"),
              sampling_tolerance(below, kClockInterval));
}

INSTANTIATE_TEST_SUITE_P(Runtimes, OmpNested, testing::ValuesIn(kNestedBuilds),
                         [](const testing::TestParamInfo<OmpBuild>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace lumen::test
