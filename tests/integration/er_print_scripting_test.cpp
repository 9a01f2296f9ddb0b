// er_print driven by text: -script files, the prompt, quit, -outfile and
// -appendfile, and the .er.rc defaults in $HOME and the current directory.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string er_print_path() { return (bin_dir() / "er_print").string(); }

std::string read_file(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class ErPrintScripting : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    collection_ = new Collection(collect(*dir_, {"-p", "on"}, "threads_target", {"0.5"}));
  }
  static void TearDownTestSuite() {
    delete collection_;
    delete dir_;
  }
  static std::string experiment() { return collection_->experiment.string(); }
  // The functions view as JSON with a metric spec, the reference output.
  static json reference(const std::string& metrics) {
    return er_print_json({"-metrics", metrics, "-functions"}, collection_->experiment);
  }
  static TempDir* dir_;
  static Collection* collection_;
};
TempDir* ErPrintScripting::dir_ = nullptr;
Collection* ErPrintScripting::collection_ = nullptr;

TEST_F(ErPrintScripting, ScriptRunsItsCommandsAndQuitEndsIt) {
  TempDir dir;
  const fs::path script = dir.path() / "commands.er";
  std::ofstream(script) << "# a comment\n"
                        << "format json\n"
                        << "metrics e.user:name\n"
                        << "filters thread in 1-2 && time >= 0\n"
                        << "functions\n"
                        << "quit\n"
                        << "header\n";  // never reached
  const ProcessResult r = run_process({er_print_path(), "-script", script.string(), experiment()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json view = json::parse(r.out);  // one document: header never ran
  const json expected = er_print_json({"-metrics", "e.user:name", "-thread_select", "1-2", "-functions"}, collection_->experiment);
  EXPECT_EQ(view, expected);
}

TEST_F(ErPrintScripting, ScriptErrorsNameTheFileAndLine) {
  TempDir dir;
  const fs::path script = dir.path() / "bad.er";
  std::ofstream(script) << "metrics e.user:name\n\nsort nosuch\n";
  const ProcessResult r = run_process({er_print_path(), "-script", script.string(), experiment()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(script.string() + ":3: unknown metric 'nosuch'"), std::string::npos) << r.err;
}

TEST_F(ErPrintScripting, OutfileAndAppendfileCollectViews) {
  TempDir dir;
  const fs::path out = dir.path() / "views.json";
  const ProcessResult r = run_process({er_print_path(), "--format=json", "-metrics", "e.user:name", "-outfile", out.string(),
                                       "-functions", "-appendfile", out.string(), "-functions", "-outfile", "-", "-metric_list",
                                       experiment()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Standard output got only what followed "-outfile -".
  EXPECT_EQ(json::parse(r.out).at("view"), "metric_list");
  std::istringstream lines(read_file(out));
  const json functions = reference("e.user:name");
  int documents = 0;
  for (std::string line, document; std::getline(lines, line);) {
    document += line + "\n";
    if (line.back() == '}' && line.find("]}") != std::string::npos) {
      EXPECT_EQ(json::parse(document), functions);
      document.clear();
      ++documents;
    }
  }
  EXPECT_EQ(documents, 2);
}

TEST_F(ErPrintScripting, PromptTakesCommandsWithOrWithoutTheDash) {
  const ProcessResult r = run_process({er_print_path(), experiment()}, {},
                                      "format json\n-metrics e.user:name\nfunctions\nbogus\nexit\nfunctions\n");
  EXPECT_EQ(r.exit_code, 1) << r.err;  // the bogus command failed
  EXPECT_NE(r.err.find("unknown command 'bogus' (try help)"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(r.out), reference("e.user:name"));  // exit stopped the second view
  const ProcessResult help = run_process({er_print_path(), experiment()}, {}, "help\n");
  EXPECT_NE(help.out.find("thread_select LIST"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("disasm FUNC|FILE"), std::string::npos) << help.out;
}

TEST_F(ErPrintScripting, DefaultsFilesSetMetricsSortAndName) {
  TempDir home;
  std::ofstream(home.path() / ".er.rc") << "dmetrics i.user:name\n"
                                        << "dsort name\n"
                                        << "name short\n"
                                        << "viewmode expert\n";
  const ProcessResult r = run_process({er_print_path(), "--format=json", "-functions", experiment()},
                                      {{"HOME", home.path().string()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json view = json::parse(r.out);
  ASSERT_EQ(view.at("metrics").size(), 1u);
  EXPECT_EQ(view.at("metrics").at(0).at("spec"), "i.user");
  std::vector<std::string> names;
  for (size_t i = 1; i < view.at("rows").size(); ++i) names.push_back(view.at("rows").at(i).at("name"));
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  // The command line overrides the defaults.
  const ProcessResult over = run_process({er_print_path(), "--format=json", "-metrics", "e.user:name", "-functions", experiment()},
                                         {{"HOME", home.path().string()}});
  ASSERT_EQ(over.exit_code, 0) << over.err;
  EXPECT_EQ(json::parse(over.out).at("metrics").at(0).at("spec"), "e.user");

  std::ofstream(home.path() / ".er.rc", std::ios::app) << "functions\n";
  const ProcessResult bad = run_process({er_print_path(), "-functions", experiment()}, {{"HOME", home.path().string()}});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find(".er.rc:5: 'functions' is not a setting"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace lumen::test
