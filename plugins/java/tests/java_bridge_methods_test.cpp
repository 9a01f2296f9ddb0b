// A bridge method is a function apart from the method it calls, whose name
// and parameters it has: JavaBridgeMethods spins in a covariant override,
// called through its base class, so its bridge is on every stack above it;
// each is one row in every view mode, the bridge named "[bridge]", and the
// override's time is what the program measured of it.
#include <gtest/gtest.h>

#include <map>

#include "java_test_run.h"

namespace lumen::test {
namespace {

const std::string kOverride = "JavaBridgeMethods$Derived.make(long)";

TEST(JavaBridgeMethods, ABridgeAndTheMethodItCallsAreRowsOfTheirOwnNames) {
  TempDir dir;
  const JavaRun r = collect_java_program(dir, {"-j", "on", "-p", "on"}, {JAVA_TEST_JAVA}, {"JavaBridgeMethods", "600"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  ASSERT_NE(r.run.out.find("bridge done"), std::string::npos) << r.run.out;
  const double truth = r.truth.at(kOverride).get<double>();
  // The samples AsyncGetCallTrace could not walk (at a safepoint) have no
  // Java frames: so much may lack, <no Java callstack recorded>'s in user mode.
  const double unwalked = row_value(
      rows_by_name(er_print_json({"-viewmode", "user", "-metrics", "i.totalcpu:name", "-functions"}, r.experiment)),
      "<no Java callstack recorded>", "i.totalcpu");
  for (const char* mode : {"user", "expert", "machine"}) {
    const nlohmann::json list =
        er_print_json({"-viewmode", mode, "-metrics", "i.totalcpu:name", "-functions"}, r.experiment);
    std::map<std::string, int> seen;
    for (const auto& row : list.at("rows")) ++seen[row.at("name").get<std::string>()];
    for (const auto& [name, times] : seen) {
      if (name.rfind("JavaBridgeMethods", 0) == 0) {
        EXPECT_EQ(times, 1) << name << " is " << times << " rows in " << mode << " mode";
      }
    }
    const auto rows = rows_by_name(list);
    EXPECT_NEAR(row_value(rows, kOverride, "i.totalcpu"), truth, sampling_tolerance(truth, 0.010) + unwalked) << mode;
    EXPECT_NEAR(row_value(rows, kOverride + " [bridge]", "i.totalcpu"), truth,
                sampling_tolerance(truth, 0.010) + unwalked)
        << mode;
  }
}

}  // namespace
}  // namespace lumen::test
