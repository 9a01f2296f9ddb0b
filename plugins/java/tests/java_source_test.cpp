// Java source lines and bytecode end to end: a real JVM (JavaHotMethods)
// under the real collector; er_print places each Java frame's bytecode
// index at its line of the .java file (the class's SourceFile attribute
// under -addpath) and at its instruction of the method's bytecode, which
// javap, the JDK's own disassembler, lists the same.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cctype>
#include <fstream>
#include <sstream>

#include "java_test_run.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

const char* const kHotMethod = "JavaHotMethods.spinBeta(long)";

std::vector<nlohmann::json> rows_where(const nlohmann::json& view, const std::string& field, const std::string& value) {
  std::vector<nlohmann::json> rows;
  for (const auto& row : view.at("rows"))
    if (row.contains(field) && row.at(field) == value) rows.push_back(row);
  return rows;
}

double metric(const nlohmann::json& row, const char* key) { return row.at("values").at(key).get<double>(); }

// The lines [first, last] of the method whose declaration contains
// `declaration`, in the program's source: from there to its closing brace.
std::pair<int, int> method_lines(const std::string& declaration) {
  std::ifstream in(fs::path(JAVA_TEST_SOURCE_DIR) / "JavaHotMethods.java");
  int n = 0, first = 0;
  for (std::string line; std::getline(in, line);) {
    ++n;
    if (first == 0 && line.find(declaration) != std::string::npos) first = n;
    if (first != 0 && line == "  }") return {first, n};
  }
  return {0, 0};
}

class JavaSource : public JavaHotMethodsSuite {
 protected:
  static double method_exclusive() {
    const auto rows = rows_by_name(er_print_json({"-metrics", "e.totalcpu:name", "-functions"}, run_->experiment));
    return row_value(rows, kHotMethod, "e.totalcpu");
  }
  // -source or -disasm of the hot method, its source found with -addpath.
  static nlohmann::json annotated(const char* command) {
    return er_print_json({"-addpath", JAVA_TEST_SOURCE_DIR, "-metrics", "e.totalcpu:name", command, kHotMethod},
                         run_->experiment);
  }
};

TEST_F(JavaSource, LinesOfTheHotMethodSumToItsTime) {
  ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
  const double exclusive = method_exclusive();
  ASSERT_GT(exclusive, 0.1);
  const nlohmann::json lines = er_print_json({"-metrics", "e.totalcpu:name", "-lines"}, run_->experiment);
  const auto [first, last] = method_lines("static double spinBeta(long rounds)");
  ASSERT_GT(first, 0);
  double sum = 0;
  for (const auto& row : lines.at("rows")) {
    const std::string name = row.at("name").get<std::string>();
    if (name.rfind(std::string(kHotMethod) + ", line ", 0) != 0) continue;
    EXPECT_NE(name.find(" in \"JavaHotMethods.java\""), std::string::npos) << name;
    EXPECT_EQ(row.at("file"), "JavaHotMethods.java");
    const int line = std::stoi(row.at("line").get<std::string>());
    EXPECT_GE(line, first) << name;
    EXPECT_LE(line, last) << name;
    sum += metric(row, "e.totalcpu");
  }
  EXPECT_NEAR(sum, exclusive, 1e-6);
}

TEST_F(JavaSource, SourceShowsTheJavaFileWithTheLoopHot) {
  const double exclusive = method_exclusive();
  const nlohmann::json source = annotated("-source");
  const auto files = rows_where(source, "kind", "file");
  ASSERT_EQ(files.size(), 1u) << source.dump();
  EXPECT_EQ(files[0].at("name"), "Source file: " + (fs::path(JAVA_TEST_SOURCE_DIR) / "JavaHotMethods.java").string());
  const auto lines = rows_where(source, "kind", "line");
  const auto [first, last] = method_lines("static double spinBeta(long rounds)");
  double in_method = 0, loop = 0;
  bool loop_marked = false;
  for (const auto& row : lines) {
    const int n = std::stoi(row.at("line").get<std::string>());
    if (n < first || n > last) continue;
    in_method += metric(row, "e.totalcpu");
    // The loop's body is where the method spends its time.
    if (row.at("name").get<std::string>().find("y = y * 1.0000001") != std::string::npos) {
      loop = metric(row, "e.totalcpu");
      loop_marked = row.at("marker") == "## ";
    }
  }
  EXPECT_NEAR(in_method, exclusive, 1e-6);
  EXPECT_GT(loop, 0.8 * exclusive);
  EXPECT_TRUE(loop_marked);
}

TEST_F(JavaSource, AMissingSourceFileIsSaidPlainly) {
  // Not under the default paths (the experiment's directory, the current
  // one): the lines are still listed with their metrics.
  const nlohmann::json source =
      er_print_json({"-setpath", dir_->path().string(), "-metrics", "e.totalcpu:name", "-source", kHotMethod},
                    run_->experiment);
  const auto files = rows_where(source, "kind", "file");
  ASSERT_EQ(files.size(), 1u);
  EXPECT_NE(files[0].at("name").get<std::string>().find("JavaHotMethods.java (not found;"), std::string::npos)
      << files[0].dump();
  double sum = 0;
  for (const auto& row : rows_where(source, "kind", "line")) sum += metric(row, "e.totalcpu");
  EXPECT_GT(sum, 0.0);
  // A copy in the experiment's directory is found there ($expts).
  fs::copy_file(fs::path(JAVA_TEST_SOURCE_DIR) / "JavaHotMethods.java", run_->experiment / "JavaHotMethods.java");
  const nlohmann::json found = er_print_json({"-source", kHotMethod}, run_->experiment);
  EXPECT_EQ(rows_where(found, "kind", "file").at(0).at("name"),
            "Source file: " + (run_->experiment / "JavaHotMethods.java").string());
  fs::remove(run_->experiment / "JavaHotMethods.java");
  // A FIFO of that name is never opened (it would block): it is not found.
  ASSERT_EQ(::mkfifo((run_->experiment / "JavaHotMethods.java").c_str(), 0600), 0);
  const nlohmann::json fifo = er_print_json({"-source", kHotMethod}, run_->experiment);
  EXPECT_NE(rows_where(fifo, "kind", "file").at(0).at("name").get<std::string>().find("(not found;"),
            std::string::npos);
  fs::remove(run_->experiment / "JavaHotMethods.java");
}


// javap -c's instructions of one method of JavaHotMethods: "N: mnemonic".
std::vector<std::string> javap_instructions(const std::string& declaration) {
  const ProcessResult javap = run_process({JAVA_TEST_JAVAP, "-c", "-cp", JAVA_TEST_CLASS_DIR, "JavaHotMethods"});
  std::vector<std::string> instructions;
  std::istringstream in(javap.out);
  bool inside = false;
  for (std::string line; std::getline(in, line);) {
    if (line.find(declaration) != std::string::npos) inside = true;
    else if (inside && line.empty()) break;
    const size_t colon = line.find(": ");
    if (!inside || colon == std::string::npos || line.find_first_not_of(' ') == std::string::npos) continue;
    const size_t start = line.find_first_not_of(' ');
    if (!std::isdigit(static_cast<unsigned char>(line[start]))) continue;
    std::string mnemonic = line.substr(colon + 2);
    mnemonic = mnemonic.substr(0, mnemonic.find_first_of(" \t"));
    instructions.push_back(line.substr(start, colon - start) + ": " + mnemonic);
  }
  return instructions;
}

TEST_F(JavaSource, DisasmShowsTheBytecodeWithEveryIndexsMetrics) {
  const double exclusive = method_exclusive();
  const nlohmann::json disasm = annotated("-disasm");
  const auto instructions = rows_where(disasm, "kind", "instruction");
  ASSERT_GT(instructions.size(), 10u) << disasm.dump();
  double sum = 0;
  for (const auto& row : instructions) sum += metric(row, "e.totalcpu");
  EXPECT_NEAR(sum, exclusive, 1e-6);
  // Every instruction javap lists, at its index and by its name.
  const std::vector<std::string> expected = javap_instructions("static double spinBeta(long);");
  ASSERT_GT(expected.size(), 10u);
  std::vector<std::string> listed;
  for (const auto& row : instructions) {
    const std::string name = row.at("name").get<std::string>();
    listed.push_back(name.substr(0, name.find(' ', name.find(": ") + 2)));
  }
  EXPECT_EQ(listed, expected);
  // The loop's source line is interleaved, above its bytecode.
  bool loop_line = false;
  for (const auto& row : rows_where(disasm, "kind", "source"))
    loop_line = loop_line || row.at("name").get<std::string>().find("y = y * 1.0000001") != std::string::npos;
  EXPECT_TRUE(loop_line);
}

}  // namespace
}  // namespace lumen::test
