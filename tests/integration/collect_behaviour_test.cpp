// collect must not change what the target sees or does, and must refuse bad
// input clearly before the target starts.
#include <gtest/gtest.h>

#include <algorithm>
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
  // One line saying what is wrong (and, for an option, where to look): not
  // the whole usage.
  EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  EXPECT_EQ(r.err.find("usage:"), std::string::npos) << r.err;
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
        BadInput{"ProfileIntervalOutOfRange", {"--profile", "PROFILE"}, "plugins:\n  clock:\n    interval: 0.01us\n", "out of range"},
        // Oracle's flags for what this platform cannot record: refused by name, with the reason.
        BadInput{"CountData", {"-c", "on"}, "", "-c is not offered: count data needs binary instrumentation"},
        BadInput{"CountDataLibraries", {"-I", "/tmp"}, "", "-I is not offered"},
        BadInput{"DataRaces", {"-r", "race"}, "", "-r is not offered: data-race and deadlock detection"},
        BadInput{"StopForDebugger", {"-x"}, "", "-x is not offered"},
        BadInput{"AttachWithAProgram", {"-P", "1"}, "", "-P attaches to a running process: no program is given"},
        BadInput{"AttachToAWord", {"-P", "init"}, "", "-P takes the id of a running process, not 'init'"},
        BadInput{"ExperimentGroup", {"-g", "all.erg"}, "", "-g is not offered"},
        BadInput{"GprofngArchiveWord", {"-a", "everything"}, "", "-a takes off, on, ldobjects"},
        BadInput{"VerboseWord", {"--verbose", "loud"}, "", "--verbose takes on or off"}),
    [](const ::testing::TestParamInfo<BadInput>& info) { return info.param.name; });

// gprofng's -O: the same as -o, replacing an experiment of that name, and
// only an experiment.
TEST(CollectBehaviour, CapitalOReplacesAnExperimentAndNothingElse) {
  TempDir dir;
  const std::string d = dir.path().string();
  ASSERT_EQ(run_process({collect_path(), "-d", d, "-o", "run.er", behaviour_target(), "0"}).exit_code, 0);
  std::ofstream(dir.path() / "run.er" / "left-over") << "from the first run\n";
  const ProcessResult again = run_process({collect_path(), "-d", d, "-O", "run.er", behaviour_target(), "3"});
  EXPECT_EQ(again.exit_code, 3) << again.err;
  EXPECT_FALSE(fs::exists(dir.path() / "run.er" / "left-over")) << "replaced, not reused";
  EXPECT_FALSE(fs::exists(dir.path() / "run.2.er"));
  EXPECT_EQ(er_print_json({"-header"}, dir.path() / "run.er").at("experiments").at(0).at("exit_code"), 3);

  fs::create_directory(dir.path() / "notes.er");
  std::ofstream(dir.path() / "notes.er" / "mine.txt") << "not an experiment\n";
  fs::create_directory_symlink(dir.path() / "run.er", dir.path() / "link.er");
  for (const char* name : {"notes.er", "link.er"}) {
    const ProcessResult refused = run_process({collect_path(), "-d", d, "-O", name, behaviour_target(), "0"});
    EXPECT_EQ(refused.exit_code, 2) << name;
    EXPECT_NE(refused.err.find("is not an experiment; -O replaces only an experiment"), std::string::npos) << refused.err;
  }
  EXPECT_TRUE(fs::exists(dir.path() / "notes.er" / "mine.txt"));
  EXPECT_TRUE(fs::exists(dir.path() / "run.er" / "header.yaml"));
}

// --verbose and -v print the plan where the target's output is not.
TEST(CollectBehaviour, VerbosePrintsThePlanOnStandardErrorOnly) {
  TempDir dir;
  const ProcessResult plain = run_process({behaviour_target(), "0", "words"});
  for (const std::vector<std::string>& flag : {std::vector<std::string>{"-v"}, {"--verbose", "on"}}) {
    std::vector<std::string> argv{collect_path(), "-d", dir.path().string()};
    argv.insert(argv.end(), flag.begin(), flag.end());
    argv.insert(argv.end(), {behaviour_target(), "0", "words"});
    const ProcessResult r = run_process(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, plain.out);
    EXPECT_NE(r.err.find("plugins:\n  clock"), std::string::npos) << r.err;
  }
}

// gprofng's -a: off, or archive the files (-A copy).
TEST(CollectBehaviour, GprofngsArchiveFlagMapsToArchiveModes) {
  for (const auto& [word, mode] : std::vector<std::pair<std::string, std::string>>{
           {"off", "off"}, {"on", "copy"}, {"ldobjects", "copy"}, {"usedsrc", "copy"}}) {
    const ProcessResult r = run_process({collect_path(), "-a", word, "-n", behaviour_target()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("archive: " + mode + "\n"), std::string::npos) << word << ": " << r.out;
  }
}

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
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu:name", "-functions"}, c.experiment));
  const double truth = c.truth.at("functions").at("burn_then_crash").get<double>();
  ASSERT_TRUE(rows.count("burn_then_crash"));
  EXPECT_NEAR(rows.at("burn_then_crash").at("i.totalcpu").get<double>(), truth, sampling_tolerance(truth, 0.01));
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
