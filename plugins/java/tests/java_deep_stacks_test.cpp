// Java stacks deeper than a recorded stack holds, end to end: JavaDeepStacks
// (jsynprog's two recursions, 80 and 500 calls deep, each timing itself with
// ThreadMXBean) under the real collector. A cut stack keeps its innermost
// frames and ends with <Truncated-stack>, which holds exactly the time of
// the recursion too deep to keep, in every view mode; a stack that fits is
// whole.
#include <gtest/gtest.h>

#include "java_test_run.h"

namespace lumen::test {
namespace {

constexpr double kInterval = 0.010;

TEST(JavaDeepStacks, StacksDeeperThanKeptEndWithTruncatedStack) {
  TempDir dir;
  const JavaRun r = collect_java_program(dir, {"-j", "on", "-p", "on"}, {JAVA_TEST_JAVA}, {"JavaDeepStacks", "600"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_NE(r.run.out.find("deep stacks done"), std::string::npos);
  const double deep = r.truth.at("JavaDeepStacks.deep(int, long)").get<double>();
  const double shallow = r.truth.at("JavaDeepStacks.shallow(int, long)").get<double>();
  // Samples AsyncGetCallTrace could not walk are not the recursions'.
  const double unwalked = unwalked_cpu(
      rows_by_name(er_print_json({"-metrics", "i.totalcpu:name", "-functions"}, r.experiment)));
  for (const char* mode : {"user", "expert", "machine"}) {
    const auto rows =
        rows_by_name(er_print_json({"-viewmode", mode, "-metrics", "i.totalcpu:name", "-functions"}, r.experiment));
    const double truncated = row_value(rows, "<Truncated-stack>", "i.totalcpu");
    EXPECT_NEAR(truncated, deep, sampling_tolerance(deep, kInterval) + unwalked) << mode;
    // The cut stacks keep the recursion's innermost frames.
    EXPECT_NEAR(row_value(rows, "JavaDeepStacks.deep(int, long)", "i.totalcpu"), deep,
                sampling_tolerance(deep, kInterval) + unwalked)
        << mode;
    EXPECT_NEAR(row_value(rows, "JavaDeepStacks.shallow(int, long)", "i.totalcpu"), shallow,
                sampling_tolerance(shallow, kInterval) + unwalked)
        << mode;
    // main is on the whole stacks only: the cut ones lost it.
    EXPECT_NEAR(row_value(rows, "JavaDeepStacks.main(java.lang.String[])", "i.totalcpu"), shallow,
                sampling_tolerance(shallow, kInterval) + unwalked)
        << mode;
  }
}

}  // namespace
}  // namespace lumen::test
