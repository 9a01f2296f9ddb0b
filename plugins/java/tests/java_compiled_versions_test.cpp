// Each compiled version of a Java method is a function of its own in
// machine mode, named apart: a method compiled at tier 3 and at tier 4
// (JavaCompiledVersions, the JVM's thresholds for tier 4 raised so that
// both versions run a good while) shows as "hot(int) [compiled N]" rows,
// no two of one name, each N one of the compilations the JVM itself
// reports (-XX:+PrintCompilation).
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "java_test_run.h"

namespace lumen::test {
namespace {

const std::string kMethod = "JavaCompiledVersions.hot(int)";

// The compilations of hot(int) that -XX:+PrintCompilation listed (a line
// each as it is installed; "made not entrant" lines are not compilations).
int compilations_listed(const std::string& out) {
  std::istringstream lines(out);
  int count = 0;
  for (std::string line; std::getline(lines, line);)
    if (line.find("JavaCompiledVersions::hot ") != std::string::npos && line.find("made ") == std::string::npos)
      ++count;
  return count;
}

TEST(JavaCompiledVersions, EachCompiledVersionIsARowOfItsOwnName) {
  TempDir dir;
  const JavaRun r = collect_java_program(
      dir, {"-j", "on", "-p", "on"},
      {JAVA_TEST_JAVA, "-XX:+PrintCompilation", "-XX:Tier4InvocationThreshold=200", "-XX:Tier4MinInvocationThreshold=100",
       "-XX:Tier4CompileThreshold=200", "-XX:Tier4BackEdgeThreshold=1000000000"},
      {"JavaCompiledVersions", "1500"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  ASSERT_NE(r.run.out.find("compiled versions done"), std::string::npos) << r.run.out;
  const int compilations = compilations_listed(r.run.out);
  ASSERT_GE(compilations, 2) << r.run.out;
  const nlohmann::json list =
      er_print_json({"-viewmode", "machine", "-metrics", "e.totalcpu:name", "-functions"}, r.experiment);
  std::map<std::string, int> rows;
  std::map<int, double> versions;  // version number -> exclusive CPU
  const std::string prefix = kMethod + " [compiled ";
  for (const auto& row : list.at("rows")) {
    const std::string name = row.at("name").get<std::string>();
    ++rows[name];
    if (name.rfind(prefix, 0) != 0) continue;
    const int number = std::stoi(name.substr(prefix.size()));
    EXPECT_EQ(name, prefix + std::to_string(number) + "]");
    EXPECT_GE(number, 1) << name;
    EXPECT_LE(number, compilations) << name << "; the JVM listed " << compilations << ":\n" << r.run.out;
    versions[number] += row.at("values").at("e.totalcpu").get<double>();
  }
  for (const auto& [name, times] : rows) {
    if (name.rfind("JavaCompiledVersions.", 0) == 0) {
      EXPECT_EQ(times, 1) << name << " is " << times << " rows";
    }
  }
  // Tier 3's code and tier 4's both ran long enough to be sampled.
  EXPECT_GE(versions.size(), 2u) << list.dump().substr(0, 3000);
}

}  // namespace
}  // namespace lumen::test
