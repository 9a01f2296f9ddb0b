// collect must not change what the target sees or does, and must refuse bad
// input clearly before the target starts.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

std::string collect_path() { return (bin_dir() / "collect").string(); }
std::string behaviour_target() { return (target_dir() / "behaviour_target").string(); }

TEST(CollectBehaviour, TargetSeesTheSameArgumentsStdinEnvironmentAndExitStatus) {
  TempDir dir;
  const std::map<std::string, std::string> env{{"LUMEN_TEST_PROBE", "value with spaces"}};
  const ProcessResult plain = run_process({behaviour_target(), "7", "two words", ""}, env, "line one\nline two\n");
  const ProcessResult collected = run_process(
      {collect_path(), "-d", dir.path().string(), behaviour_target(), "7", "two words", ""}, env, "line one\nline two\n");
  EXPECT_EQ(plain.exit_code, 7);
  EXPECT_EQ(collected.exit_code, 7);
  EXPECT_EQ(collected.out, plain.out);
  EXPECT_TRUE(fs::is_directory(dir.path() / "test.1.er"));
}

TEST(CollectBehaviour, TargetKilledBySignalEndsCollectTheSameWayAndIsRecorded) {
  TempDir dir;
  const ProcessResult r = run_process({collect_path(), "-d", dir.path().string(), behaviour_target(), "sig:15"});
  EXPECT_EQ(r.signal, SIGTERM);
  const auto header = er_print_json({"-header"}, dir.path() / "test.1.er");
  EXPECT_EQ(header.at("experiments").at(0).at("signal"), "SIGTERM");
}

TEST(CollectBehaviour, ExperimentsAreNumberedAndNeverOverwritten) {
  TempDir dir;
  for (int i = 0; i < 2; ++i)
    ASSERT_EQ(run_process({collect_path(), "-d", dir.path().string(), behaviour_target()}).exit_code, 0);
  EXPECT_TRUE(fs::is_directory(dir.path() / "test.1.er"));
  EXPECT_TRUE(fs::is_directory(dir.path() / "test.2.er"));
  ASSERT_EQ(run_process({collect_path(), "-d", dir.path().string(), "-o", "mine.er", behaviour_target()}).exit_code, 0);
  const ProcessResult again =
      run_process({collect_path(), "-d", dir.path().string(), "-o", "mine.er", behaviour_target()});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_NE(again.err.find("never overwritten"), std::string::npos) << again.err;
}

TEST(CollectBehaviour, CommentsAndExitStatusAreInTheHeader) {
  TempDir dir;
  ASSERT_EQ(run_process({collect_path(), "-d", dir.path().string(), "-C", "first run", "-C", "second",
                         behaviour_target(), "3"})
                .exit_code,
            3);
  const auto e = er_print_json({"-header"}, dir.path() / "test.1.er").at("experiments").at(0);
  EXPECT_EQ(e.at("exit_code"), 3);
  EXPECT_EQ(e.at("comment1"), "first run");
  EXPECT_EQ(e.at("comment2"), "second");
  EXPECT_EQ(e.at("dropped_records"), 0);
}

struct BadInput {
  std::string name;
  std::vector<std::string> args;  // before the target
  std::string profile_text;       // written to bad.yaml when not empty
  std::string expected;           // part of the error message
};

class CollectRefuses : public ::testing::TestWithParam<BadInput> {};

TEST_P(CollectRefuses, WithAClearMessageAndWithoutStartingTheTarget) {
  TempDir dir;
  const BadInput& bad = GetParam();
  std::vector<std::string> argv{collect_path(), "-d", dir.path().string()};
  for (std::string arg : bad.args) {
    if (arg == "PROFILE") arg = (dir.path() / "bad.yaml").string();
    argv.push_back(arg);
  }
  if (!bad.profile_text.empty()) std::ofstream(dir.path() / "bad.yaml") << bad.profile_text;
  argv.push_back(behaviour_target());
  const auto marker = dir.path() / "started";
  const ProcessResult r = run_process(argv, {{"LUMEN_TEST_MARKER", marker.string()}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(bad.expected), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(marker)) << "the target must not start";
  EXPECT_FALSE(fs::exists(dir.path() / "test.1.er"));
}

INSTANTIATE_TEST_SUITE_P(
    BadOptionsAndProfiles, CollectRefuses,
    ::testing::Values(
        BadInput{"UnknownOption", {"-Q"}, "", "unknown option '-Q'"},
        BadInput{"FlagWithoutTarget", {"-p"}, "", "no target program given"},
        BadInput{"BadIntervalWord", {"-p", "fast"}, "", "-p: 'fast' is not a duration"},
        BadInput{"IntervalOutOfRange", {"-p", "20s"}, "", "out of range"},
        BadInput{"NameWithoutEr", {"-o", "result"}, "", "must end in .er"},
        BadInput{"MissingDirectory", {"-d", "/nonexistent/dir"}, "", "does not exist"},
        BadInput{"UnknownShippedProfile", {"--profile", "no-such-profile"}, "", "no shipped profile named 'no-such-profile'"},
        BadInput{"UnknownOptionInProfile", {"--profile", "PROFILE"}, "description: x\nplugins:\n  clock:\n    intervall: 10ms\n",
                 "bad.yaml:4: unknown option 'intervall' for plugin 'clock'; allowed: interval"},
        BadInput{"UnknownPluginInProfile", {"--profile", "PROFILE"}, "plugins:\n  clocks: {}\n", "bad.yaml:2: unknown plugin 'clocks'"},
        BadInput{"UnknownKeyInProfile", {"--profile", "PROFILE"}, "description: x\nsampling: on\n",
                 "bad.yaml:2: unknown key 'sampling'; allowed: description, plugins"},
        BadInput{"InvalidYaml", {"--profile", "PROFILE"}, "plugins:\n  clock:\n    interval: [1, 2\n", "bad.yaml:4: not valid YAML: end of sequence flow not found"},
        BadInput{"ProfileIntervalOutOfRange", {"--profile", "PROFILE"}, "plugins:\n  clock:\n    interval: 0.01us\n", "out of range"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; });

TEST(CollectBehaviour, MissingProgramIsRefused) {
  TempDir dir;
  const ProcessResult r = run_process({collect_path(), "-d", dir.path().string(), "no-such-program-here"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("cannot find an executable program 'no-such-program-here'"), std::string::npos) << r.err;
}

TEST(CollectBehaviour, StaticallyLinkedTargetIsRefusedBeforeItStarts) {
  TempDir dir;
  const auto marker = dir.path() / "started";
  const ProcessResult r = run_process({collect_path(), "-d", dir.path().string(), (target_dir() / "static_target").string()},
                                      {{"LUMEN_TEST_MARKER", marker.string()}});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("is statically linked"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_FALSE(fs::exists(dir.path() / "test.1.er"));
}

TEST(CollectBehaviour, CrashedTargetLeavesAReadableExperiment) {
  TempDir dir;
  const Collection c = collect(dir, {}, "behaviour_target", {"segv"});
  EXPECT_EQ(c.run.signal, SIGSEGV);
  const auto header = er_print_json({"-header"}, c.experiment).at("experiments").at(0);
  EXPECT_EQ(header.at("signal"), "SIGSEGV");
  // What was recorded before the crash is on disk (mapped blocks).
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.user:name", "-functions"}, c.experiment));
  const double truth = c.truth.at("functions").at("burn_then_crash").get<double>();
  ASSERT_TRUE(rows.count("burn_then_crash"));
  EXPECT_NEAR(rows.at("burn_then_crash").at("i.user").get<double>(), truth, sampling_tolerance(truth, 0.01));
}

TEST(CollectBehaviour, DryRunPrintsThePlanAndRunsNothing) {
  TempDir dir;
  const auto marker = dir.path() / "started";
  const ProcessResult r = run_process({collect_path(), "-n", "-d", dir.path().string(), "-p", "hi", behaviour_target()},
                                      {{"LUMEN_TEST_MARKER", marker.string()}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("clock"), std::string::npos);
  EXPECT_NE(r.out.find("interval: 1000000"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_FALSE(fs::exists(dir.path() / "test.1.er"));
}

TEST(CollectBehaviour, ShippedProfileByNameAndCommandLineOverride) {
  TempDir dir;
  const ProcessResult r = run_process(
      {collect_path(), "-n", "--profile", "default", "-p", "lo", "-d", dir.path().string(), behaviour_target()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("interval: 100000000"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace lumen::test
