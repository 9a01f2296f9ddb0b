// Descendant processes: fork, exec, posix_spawn and system children are
// collected into sub-experiments named by lineage, and er_print on the
// founder shows every process's own functions with their CPU times.
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

// Sums the per-process truth files the target's processes wrote.
std::map<std::string, double> all_truth(const TempDir& dir) {
  std::map<std::string, double> truth;
  for (const auto& entry : fs::directory_iterator(dir.path())) {
    if (entry.path().filename().string().rfind("truth.json.", 0) != 0) continue;
    std::ifstream in(entry.path());
    const nlohmann::json process_truth = nlohmann::json::parse(in);
    for (const auto& [name, seconds] : process_truth.at("functions").items()) truth[name] += seconds.get<double>();
  }
  return truth;
}

const std::string kExpectedOutput = "fork+exec exit 5\nposix_spawn exit 5\nsystem exit 5\n";

TEST(Descendants, EveryProcessIsCollectedWithItsOwnCpuTime) {
  TempDir dir;
  const Collection c = collect(dir, {}, "descendants_target");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, kExpectedOutput);
  const auto truth = all_truth(dir);
  ASSERT_EQ(truth.size(), 3u);
  // Three images burn in exec_image_work: the fork's exec, the spawn, system's.
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.user:name", "-functions"}, c.experiment));
  for (const auto& [name, seconds] : truth) {
    ASSERT_TRUE(rows.count(name)) << name;
    EXPECT_NEAR(rows.at(name).at("i.user").get<double>(), seconds, sampling_tolerance(seconds, 0.01) * 2) << name;
  }

  const auto list = er_print_json({"-exp_list"}, c.experiment).at("experiments");
  std::set<std::string> lineages;
  for (const auto& e : list) lineages.insert(e.at("lineage").get<std::string>());
  EXPECT_TRUE(lineages.count(""));
  EXPECT_TRUE(lineages.count("_f1"));
  EXPECT_TRUE(lineages.count("_f1_x1"));
  EXPECT_TRUE(lineages.count("_f2_x1"));
  EXPECT_TRUE(lineages.count("_f3_x1")) << "system() runs /bin/sh as the third child";

  // A sub-experiment opened alone holds only its own process.
  const auto child = rows_by_name(er_print_json({"-metrics", "i.user:name", "-functions"}, c.experiment / "_f1.er"));
  EXPECT_TRUE(child.count("forked_child_work"));
  EXPECT_FALSE(child.count("founder_work"));
  EXPECT_FALSE(child.count("exec_image_work"));
  const auto header = er_print_json({"-header"}, c.experiment / "_f1_x1.er").at("experiments").at(0);
  EXPECT_NE(header.at("command").get<std::string>().find("exec"), std::string::npos);
}

TEST(Descendants, FollowingOffCollectsOnlyTheFounder) {
  TempDir dir;
  const Collection c = collect(dir, {"-F", "off"}, "descendants_target");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, kExpectedOutput);
  for (const auto& entry : fs::directory_iterator(c.experiment))
    EXPECT_NE(entry.path().extension(), ".er") << entry.path();
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.user:name", "-functions"}, c.experiment));
  EXPECT_TRUE(rows.count("founder_work"));
  EXPECT_FALSE(rows.count("forked_child_work"));
  EXPECT_FALSE(rows.count("exec_image_work"));
}

TEST(Descendants, RegexSelectsTheImagesThatAreFollowed) {
  TempDir dir;
  const Collection c = collect(dir, {"-F", "=no-such-command"}, "descendants_target");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_TRUE(fs::exists(c.experiment / "_f1.er")) << "a fork child runs the founder's own program";
  EXPECT_FALSE(fs::exists(c.experiment / "_f1_x1.er"));
  EXPECT_FALSE(fs::exists(c.experiment / "_f2_x1.er"));
}

}  // namespace
}  // namespace lumen::test
