// Descendant processes: fork, exec, posix_spawn and system children are
// collected into sub-experiments named by lineage, and er_print on the
// founder shows every process's own functions with their CPU times.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>
#include <sstream>

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

// er_print's header of one experiment.
nlohmann::json header_of(const fs::path& experiment) {
  return er_print_json({"-header"}, experiment).at("experiments").at(0);
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
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu:name", "-functions"}, c.experiment));
  for (const auto& [name, seconds] : truth) {
    ASSERT_TRUE(rows.count(name)) << name;
    EXPECT_NEAR(rows.at(name).at("i.totalcpu").get<double>(), seconds, sampling_tolerance(seconds, 0.01) * 2) << name;
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
  const auto child = rows_by_name(er_print_json({"-metrics", "i.totalcpu:name", "-functions"}, c.experiment / "_f1.er"));
  EXPECT_TRUE(child.count("forked_child_work"));
  EXPECT_FALSE(child.count("founder_work"));
  EXPECT_FALSE(child.count("exec_image_work"));
  const auto header = header_of(c.experiment / "_f1_x1.er");
  EXPECT_NE(header.at("command").get<std::string>().find("exec"), std::string::npos);

  // Every process says how it ended, and says what the founder says of the
  // machine and the plan.
  EXPECT_EQ(header.at("exit_code"), 5);
  EXPECT_EQ(header_of(c.experiment / "_f2_x1.er").at("exit_code"), 5) << "the posix_spawn child";
  const auto forked = header_of(c.experiment / "_f1.er");
  EXPECT_NE(forked.at("ending").get<std::string>().find("exec"), std::string::npos) << forked.dump();
  const auto founder = header_of(c.experiment);
  EXPECT_EQ(founder.at("exit_code"), 0);
  EXPECT_EQ(forked.at("clock_mhz"), founder.at("clock_mhz"));
  EXPECT_EQ(forked.at("plugin.clock"), founder.at("plugin.clock"));
}

// The functions each image's own measurements name, with the CPU time it
// measured, in the experiment's function view.
void expect_each_images_work(const TempDir& dir, const Collection& c, size_t images) {
  const auto truth = all_truth(dir);
  ASSERT_EQ(truth.size(), images);
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu:name", "-functions"}, c.experiment));
  for (const auto& [name, seconds] : truth) {
    ASSERT_TRUE(rows.count(name)) << name;
    EXPECT_NEAR(rows.at(name).at("i.totalcpu").get<double>(), seconds, sampling_tolerance(seconds, 0.01)) << name;
  }
}

// A vforked child shares its parent's memory and stack until it execs: the
// child is collected from its exec on, and the founder goes on unharmed.
TEST(Descendants, AVforkedChildIsCollectedFromItsExec) {
  TempDir dir;
  const Collection c = collect(dir, {}, "descendants_target", {"vfork"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, "vfork+exec exit 5\n");
  expect_each_images_work(dir, c, 2);
  EXPECT_EQ(header_of(c.experiment / "_f1_x1.er").at("exit_code"), 5);
  EXPECT_EQ(header_of(c.experiment).at("exit_code"), 0);
}

// The founder replacing its own image with no fork: one process, two
// images, each an experiment of its own; the first says it was replaced,
// the second how the process ended, and collect exits as it did.
TEST(Descendants, AFounderThatExecsWithoutForkIsCollectedInBothImages) {
  TempDir dir;
  const Collection c = collect(dir, {}, "descendants_target", {"become"});
  ASSERT_EQ(c.run.exit_code, 5) << c.run.err;
  expect_each_images_work(dir, c, 2);
  const auto founder = header_of(c.experiment);
  EXPECT_EQ(founder.value("ending", ""), "replaced by exec (its process went on as _x1)") << founder.dump();
  EXPECT_FALSE(founder.contains("exit_code")) << founder.dump();
  const auto image = header_of(c.experiment / "_x1.er");
  EXPECT_EQ(image.at("exit_code"), 5) << image.dump();
  EXPECT_EQ(image.at("target_pid"), founder.at("target_pid"));
}

TEST(Descendants, EveryWayAChildEndsIsRecorded) {
  TempDir dir;
  const Collection c = collect(dir, {}, "descendants_target", {"endings"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, "_exit exit 7\nexit exit 9\nkilled signal 15\n");
  EXPECT_EQ(header_of(c.experiment / "_f1.er").at("exit_code"), 7) << "_exit";
  EXPECT_EQ(header_of(c.experiment / "_f2.er").at("exit_code"), 9) << "exit";
  const auto killed = header_of(c.experiment / "_f3.er");
  EXPECT_EQ(killed.value("signal", ""), "SIGTERM") << killed.dump();
  EXPECT_FALSE(killed.contains("exit_code"));
}

// Threads that fork at once (a launcher starting ranks from several
// threads): every child is collected, each in a sub-experiment of its own
// lineage, with its own pid and ending.
TEST(Descendants, ChildrenForkedAtOnceByManyThreadsAreEachCollected) {
  TempDir dir;
  const Collection c = collect(dir, {}, "descendants_target", {"concurrent"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  std::set<int64_t> children;
  std::istringstream said(c.run.out);
  std::string line;
  while (std::getline(said, line)) {
    const size_t space = line.find(' ');
    ASSERT_EQ(line.substr(space), " child exit 5") << line;
    children.insert(std::stoll(line.substr(0, space)));
  }
  ASSERT_EQ(children.size(), 32u) << c.run.out;
  std::set<int64_t> collected;
  std::set<std::string> lineages;
  const nlohmann::json list = er_print_json({"-exp_list"}, c.experiment);
  for (const auto& e : list.at("experiments")) {
    const std::string lineage = e.at("lineage").get<std::string>();
    if (lineage.empty()) continue;
    collected.insert(e.at("pid").get<int64_t>());
    lineages.insert(lineage);
    EXPECT_EQ(e.value("ending", ""), "exit 5") << e.dump();
  }
  EXPECT_EQ(collected, children);
  for (int fork = 1; fork <= 32; ++fork) EXPECT_TRUE(lineages.count("_f" + std::to_string(fork))) << fork;
}

TEST(Descendants, ATargetThatOutlivesCollectSaysCollectionWasCutShort) {
  TempDir dir;
  int input[2], output[2];
  ASSERT_EQ(pipe2(input, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(output, O_CLOEXEC), 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, input[0], 0);
  posix_spawn_file_actions_adddup2(&actions, output[1], 1);
  const std::string collect = (bin_dir() / "collect").string(), target = (target_dir() / "descendants_target").string();
  std::vector<std::string> args{collect, "-o", "run.er", "-d", dir.path().string(), target, "outlive"};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t collect_pid = 0;
  ASSERT_EQ(posix_spawn(&collect_pid, collect.c_str(), &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  close(input[0]);
  close(output[1]);
  std::string said;
  char byte;
  while (said.find('\n') == std::string::npos && read(output[0], &byte, 1) == 1) said += byte;
  ASSERT_EQ(said, "started\n");
  kill(collect_pid, SIGKILL);
  int status = 0;
  waitpid(collect_pid, &status, 0);
  close(input[1]);  // the target reads to the end and exits with 3
  while (read(output[0], &byte, 1) > 0) {
  }  // end of file: every process holding the pipe, the target too, has exited
  close(output[0]);
  const fs::path experiment = dir.path() / "run.er";
  const auto header = header_of(experiment);
  EXPECT_EQ(header.at("exit_code"), 3) << header.dump();
  EXPECT_NE(header.value("cut_short", "").find("collect ended before the target"), std::string::npos) << header.dump();
  // What was recorded is an experiment like any other.
  EXPECT_TRUE(rows_by_name(er_print_json({"-functions"}, experiment)).count("<Total>"));
}

TEST(Descendants, FollowingOffCollectsOnlyTheFounder) {
  TempDir dir;
  const Collection c = collect(dir, {"-F", "off"}, "descendants_target");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, kExpectedOutput);
  for (const auto& entry : fs::directory_iterator(c.experiment))
    EXPECT_NE(entry.path().extension(), ".er") << entry.path();
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu:name", "-functions"}, c.experiment));
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

// A command line of 40 KB made the pattern's matching (then std::regex,
// recursing once a character) overflow the stack of the process that
// execs: the program crashed. The match now takes no stack for its length.
TEST(Descendants, ALongCommandLineIsMatchedWithoutHarm) {
  TempDir dir;
  const std::string long_argument(40 * 1024, 'a');
  const ProcessResult r = run_process({(bin_dir() / "collect").string(), "-d", dir.path().string(), "-o", "long.er", "-F", "=(a|b)*c",
                                       "/bin/sh", "-c", "/bin/echo \"$0\" | wc -c", long_argument});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::to_string(long_argument.size() + 1) + "\n");
}

}  // namespace
}  // namespace lumen::test
