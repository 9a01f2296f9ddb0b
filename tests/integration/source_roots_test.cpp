// er_print -source reads any file an experiment's debug information names;
// one whose real path (symlinks resolved) is outside the directories the
// experiment was recorded from is named by that path with a notice, in
// every format. A program is compiled here from a source that is a symlink
// to a file in another directory, and from one that is not.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kProgram = R"(#include <time.h>
int main(void) {
  volatile unsigned long n = 0;
  const clock_t end = clock() + CLOCKS_PER_SEC / 2;
  while (clock() < end)
    for (int i = 0; i < 100000; ++i) n++;
  return 0;
}
)";

// Compiles `source` into project/prog and records it into project/run.er.
fs::path record(const fs::path& project, const fs::path& source) {
  const fs::path program = project / "prog";
  const ProcessResult cc = run_process({LUMEN_TEST_CC, "-g", "-O0", source.string(), "-o", program.string()});
  EXPECT_EQ(cc.exit_code, 0) << cc.err;
  const ProcessResult run = run_process({(bin_dir() / "collect").string(), "-o", "run.er", "-d", project.string(), program.string()});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return project / "run.er";
}

std::vector<json> file_rows(const json& view) {
  std::vector<json> rows;
  for (const json& row : view.at("rows"))
    if (row.at("kind") == "file") rows.push_back(row);
  return rows;
}

TEST(SourceRoots, ASourceOutsideTheRecordedDirectoriesIsNamedWithANotice) {
  TempDir project, elsewhere;
  const fs::path real = elsewhere.path() / "kept.c";
  std::ofstream(real) << kProgram;
  fs::create_symlink(real, project.path() / "s.c");
  const fs::path experiment = record(project.path(), project.path() / "s.c");
  const std::string real_path = fs::canonical(real).string();

  const json source = er_print_json({"-source", "main"}, experiment);
  const auto headings = file_rows(source);
  ASSERT_EQ(headings.size(), 1u) << source.dump();
  const std::string name = headings[0].at("name");
  EXPECT_EQ(name.rfind("Source file: " + real_path + " (found outside the directories the experiment was recorded from: ", 0), 0u)
      << name;
  EXPECT_NE(name.find(fs::canonical(project.path()).string()), std::string::npos) << name;
  EXPECT_NE(name.find("; shown because er_print runs as you)"), std::string::npos) << name;
  EXPECT_EQ(headings[0].at("outside"), "yes");
  // The file's text is still shown: it is the reader's own.
  bool has_text = false;
  for (const json& row : source.at("rows")) {
    has_text = has_text || row.at("name") == "int main(void) {";
    if (row.at("kind") != "file") EXPECT_EQ(row.at("outside"), "") << row.dump();
  }
  EXPECT_TRUE(has_text);

  for (const char* format : {"text", "csv"}) {
    const ProcessResult out = run_process({(bin_dir() / "er_print").string(), std::string("--format=") + format, "-source", "main",
                                           experiment.string()});
    EXPECT_EQ(out.exit_code, 0) << out.err;
    EXPECT_NE(out.out.find("Source file: " + real_path + " (found outside the directories"), std::string::npos)
        << format << ":\n" << out.out;
  }
  // -disasm, whose source lines come from the same file, names it too.
  const json disasm = er_print_json({"-disasm", "main"}, experiment);
  const auto disasm_files = file_rows(disasm);
  ASSERT_EQ(disasm_files.size(), 1u) << disasm.dump();
  EXPECT_EQ(disasm_files[0].at("name").get<std::string>().rfind("Source file: " + real_path + " (found outside", 0), 0u);

  // A directory the user gives is one of the roots.
  const json given = er_print_json({"-addpath", elsewhere.path().string(), "-source", "main"}, experiment);
  ASSERT_EQ(file_rows(given).size(), 1u);
  EXPECT_EQ(file_rows(given)[0].at("name"), "Source file: " + (project.path() / "s.c").string());
  EXPECT_FALSE(file_rows(given)[0].contains("outside"));
}

TEST(SourceRoots, ASourceBesideTheProgramHasNoNotice) {
  TempDir project;
  std::ofstream(project.path() / "s.c") << kProgram;
  const fs::path experiment = record(project.path(), project.path() / "s.c");
  const json source = er_print_json({"-source", "main"}, experiment);
  const auto headings = file_rows(source);
  ASSERT_EQ(headings.size(), 1u) << source.dump();
  EXPECT_EQ(headings[0].at("name"), "Source file: " + (project.path() / "s.c").string());
  for (const json& row : source.at("rows")) EXPECT_FALSE(row.contains("outside")) << row.dump();
}

}  // namespace
}  // namespace lumen::test
