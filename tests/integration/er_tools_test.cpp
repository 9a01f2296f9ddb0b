// er_rm, er_mv and er_cp on real experiments: descendants and archives go
// with them, the copy or the moved experiment still reads the same, and
// anything that is not an experiment is refused and left alone.
#include <gtest/gtest.h>

#include <fstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

std::string tool(const std::string& name) { return (bin_dir() / name).string(); }

// An experiment with a descendant (_f1.er ...) and archives.
fs::path forking_experiment(const TempDir& dir) {
  const Collection c = collect(dir, {"-A", "copy"}, "descendants_target");
  EXPECT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_TRUE(fs::exists(c.experiment / "_f1.er"));
  EXPECT_TRUE(fs::exists(c.experiment / "archives"));
  // The fork child runs the founder's program: its index refers to the
  // founder's copy instead of holding a second one.
  std::ifstream index(c.experiment / "_f1.er" / "archives" / "index.yaml");
  const std::string text((std::istreambuf_iterator<char>(index)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("copy: ../../archives/descendants_target."), std::string::npos) << text;
  return c.experiment;
}

std::map<std::string, nlohmann::json> functions(const fs::path& experiment) {
  return rows_by_name(er_print_json({"-metrics", "e.totalcpu:name", "-functions"}, experiment));
}

TEST(ErTools, CopyMoveAndRemoveAnExperimentWithItsDescendants) {
  TempDir dir;
  const fs::path original = forking_experiment(dir);
  const auto expected = functions(original);

  const fs::path copy = dir.path() / "copy.er";
  const ProcessResult cp = run_process({tool("er_cp"), original.string(), copy.string()});
  ASSERT_EQ(cp.exit_code, 0) << cp.err;
  EXPECT_TRUE(fs::exists(copy / "_f1.er" / "header.yaml"));
  EXPECT_TRUE(fs::exists(copy / "archives" / "index.yaml"));
  EXPECT_EQ(functions(copy), expected);

  const fs::path moved = dir.path() / "moved.er";
  const ProcessResult mv = run_process({tool("er_mv"), copy.string(), moved.string()});
  ASSERT_EQ(mv.exit_code, 0) << mv.err;
  EXPECT_FALSE(fs::exists(copy));
  EXPECT_EQ(functions(moved), expected);

  const fs::path into = dir.path() / "shelf";
  fs::create_directory(into);
  const ProcessResult cp_into = run_process({tool("er_cp"), moved.string(), original.string(), into.string()});
  ASSERT_EQ(cp_into.exit_code, 0) << cp_into.err;
  EXPECT_TRUE(fs::exists(into / "moved.er" / "_f1.er"));
  EXPECT_TRUE(fs::exists(into / "run.er" / "_f1.er"));

  const ProcessResult rm = run_process({tool("er_rm"), moved.string(), (into / "run.er").string()});
  ASSERT_EQ(rm.exit_code, 0) << rm.err;
  EXPECT_FALSE(fs::exists(moved));
  EXPECT_FALSE(fs::exists(into / "run.er"));
  EXPECT_TRUE(fs::exists(original / "header.yaml"));
}

TEST(ErTools, WhatIsNotAnExperimentIsRefusedAndLeftAlone) {
  TempDir dir;
  const fs::path experiment = forking_experiment(dir);
  const fs::path plain = dir.path() / "notes";
  fs::create_directory(plain);
  std::ofstream(plain / "keep.txt") << "keep\n";
  const fs::path fake = dir.path() / "fake.er";
  fs::create_directory(fake);

  for (const fs::path& victim : {plain, fake}) {
    const ProcessResult rm = run_process({tool("er_rm"), victim.string()});
    EXPECT_EQ(rm.exit_code, 1);
    EXPECT_NE(rm.err.find("is not an experiment"), std::string::npos) << rm.err;
    EXPECT_TRUE(fs::exists(victim));
  }
  EXPECT_EQ(run_process({tool("er_rm"), (dir.path() / "absent.er").string()}).exit_code, 1);
  EXPECT_EQ(run_process({tool("er_rm"), "-f", (dir.path() / "absent.er").string()}).exit_code, 0);

  const ProcessResult mv_over = run_process({tool("er_mv"), plain.string(), (dir.path() / "x.er").string()});
  EXPECT_NE(mv_over.err.find("is not an experiment"), std::string::npos) << mv_over.err;
  const ProcessResult mv_exists = run_process({tool("er_mv"), experiment.string(), fake.string()});
  EXPECT_NE(mv_exists.err.find("exists; it is never overwritten"), std::string::npos) << mv_exists.err;
  const ProcessResult cp_name = run_process({tool("er_cp"), experiment.string(), (dir.path() / "copy").string()});
  EXPECT_NE(cp_name.err.find("must end in .er"), std::string::npos) << cp_name.err;
  EXPECT_TRUE(fs::exists(experiment / "header.yaml"));
  EXPECT_TRUE(fs::exists(plain / "keep.txt"));
}

}  // namespace
}  // namespace lumen::test
