// Archives: with collect's archive (or er_archive afterwards), er_print
// names the same functions after the program was deleted or rebuilt;
// without one, a rebuilt program's code is unnamed and reported
// (rebuilt_program_test.cpp rebuilds a program in place).
#include <gtest/gtest.h>

#include <cstdio>

#include <set>

#include "archive_index.h"
#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

// A private copy of a target, so the test may delete or replace it.
fs::path private_program(const TempDir& dir, const std::string& target) {
  const fs::path program = dir.path() / "app";
  fs::copy_file(target_dir() / target, program, fs::copy_options::overwrite_existing);
  return program;
}

ProcessResult collect_program(const TempDir& dir, const std::vector<std::string>& flags, const fs::path& program) {
  std::vector<std::string> argv{(bin_dir() / "collect").string(), "-o", "run.er", "-d", dir.path().string()};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {program.string(), "0.3"});
  return run_process(argv);
}

ProcessResult er_print_functions(const fs::path& experiment) {
  return run_process({(bin_dir() / "er_print").string(), "--format=json", "-metrics", "e.totalcpu:name", "-functions",
                      experiment.string()});
}

// The functions of the program itself that have samples.
std::set<std::string> spin_functions(const ProcessResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> names;
  for (const auto& [name, values] : rows_by_name(nlohmann::json::parse(r.out)))
    if (name.rfind("spin_", 0) == 0 && values.at("e.totalcpu").get<double>() > 0) names.insert(name);
  return names;
}

// The names er_print gives the program's functions while the program is
// there: what it must still give afterwards. spin_b burns longest (0.18 s).
std::set<std::string> names_while_present(const fs::path& experiment) {
  const std::set<std::string> names = spin_functions(er_print_functions(experiment));
  EXPECT_TRUE(names.count("spin_b")) << "the program's functions are named while it is there";
  return names;
}

TEST(Archives, CopiedProgramStillNamesItsFunctionsAfterItIsDeletedOrRebuilt) {
  TempDir dir;
  const fs::path program = private_program(dir, "threads_target");
  ASSERT_EQ(collect_program(dir, {"-A", "copy"}, program).exit_code, 0);
  const fs::path experiment = dir.path() / "run.er";
  EXPECT_TRUE(fs::exists(experiment / "archives" / "index.yaml"));
  const std::set<std::string> names = names_while_present(experiment);

  fs::remove(program);
  EXPECT_EQ(spin_functions(er_print_functions(experiment)), names) << "after deleting the program";

  // "Rebuilt": another program at the same path, with another build-id.
  private_program(dir, "recursive_target");
  const ProcessResult rebuilt = er_print_functions(experiment);
  EXPECT_EQ(spin_functions(rebuilt), names) << "after replacing the program";
  EXPECT_EQ(rebuilt.err.find("rebuilt"), std::string::npos) << rebuilt.err;
}

TEST(Archives, WithoutACopyARebuiltProgramIsReportedAndNotNamed) {
  TempDir dir;
  const fs::path program = private_program(dir, "threads_target");
  ASSERT_EQ(collect_program(dir, {"-A", "off"}, program).exit_code, 0);
  const fs::path experiment = dir.path() / "run.er";
  names_while_present(experiment);
  private_program(dir, "recursive_target");
  const ProcessResult rebuilt = er_print_functions(experiment);
  EXPECT_NE(rebuilt.err.find(program.string() + " changed since the experiment was recorded"), std::string::npos)
      << rebuilt.err;
  EXPECT_TRUE(spin_functions(rebuilt).empty()) << rebuilt.out;
}

TEST(Archives, ErArchiveAfterwardsMakesTheExperimentOutliveTheProgram) {
  TempDir dir;
  const fs::path program = private_program(dir, "threads_target");
  ASSERT_EQ(collect_program(dir, {"-A", "off"}, program).exit_code, 0);
  const fs::path experiment = dir.path() / "run.er";
  EXPECT_FALSE(fs::exists(experiment / "archives"));
  const std::set<std::string> names = names_while_present(experiment);
  const ProcessResult archived = run_process({(bin_dir() / "er_archive").string(), experiment.string()});
  ASSERT_EQ(archived.exit_code, 0) << archived.err;
  EXPECT_NE(archived.out.find("copied"), std::string::npos) << archived.out;
  fs::remove(program);
  EXPECT_EQ(spin_functions(er_print_functions(experiment)), names);
}

// One object that cannot be copied (here a directory where its copy's
// temporary goes) is named; the others are copied and the index written.
TEST(Archives, AnObjectThatCannotBeCopiedLeavesTheOthersArchived) {
  TempDir dir;
  const fs::path program = private_program(dir, "threads_target");
  ASSERT_EQ(collect_program(dir, {"-A", "off"}, program).exit_code, 0);
  const fs::path experiment = dir.path() / "run.er";
  const std::string copy_name = "app." + analysis::read_build_id(program).substr(0, 16);
  fs::create_directories(experiment / "archives" / ("." + copy_name + ".tmp") / "kept");
  const ProcessResult archived = run_process({(bin_dir() / "er_archive").string(), experiment.string()});
  EXPECT_EQ(archived.exit_code, 0) << archived.err;
  EXPECT_NE(archived.err.find(program.string() + " (cannot remove the old temporary of"), std::string::npos)
      << archived.err;
  EXPECT_NE(archived.err.find("could not be read and was not copied"), std::string::npos) << archived.err;
  // Every object the stacks touched but the program: libc, and ld.so when a
  // sample fell in its code (a thread's TLS, the exit's destructors).
  unsigned touched = 0, copied = 0;
  EXPECT_EQ(std::sscanf(archived.out.c_str() + archived.out.rfind(": ") + 2, "%u load objects archived, %u copied",
                        &touched, &copied),
            2)
      << archived.out;
  EXPECT_GE(touched, 2u) << archived.out;
  EXPECT_EQ(copied, touched - 1) << archived.out;
  EXPECT_TRUE(fs::exists(experiment / "archives" / "index.yaml"));
  EXPECT_FALSE(fs::exists(experiment / "archives" / copy_name));
}

TEST(Archives, ErArchiveRefusesWhatIsNotAnExperiment) {
  TempDir dir;
  const ProcessResult r = run_process({(bin_dir() / "er_archive").string(), dir.path().string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("is not an experiment"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace lumen::test
