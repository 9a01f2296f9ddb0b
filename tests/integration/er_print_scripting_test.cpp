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
                        << "metrics e.totalcpu:name\n"
                        << "filters thread in 1-2 && time >= 0\n"
                        << "functions\n"
                        << "quit\n"
                        << "header\n";  // never reached
  const ProcessResult r = run_process({er_print_path(), "-script", script.string(), experiment()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json view = json::parse(r.out);  // one document: header never ran
  const json expected = er_print_json({"-metrics", "e.totalcpu:name", "-thread_select", "1-2", "-functions"}, collection_->experiment);
  EXPECT_EQ(view, expected);
}

TEST_F(ErPrintScripting, ScriptErrorsNameTheFileAndLine) {
  TempDir dir;
  const fs::path script = dir.path() / "bad.er";
  std::ofstream(script) << "metrics e.totalcpu:name\n\nsort nosuch\n";
  const ProcessResult r = run_process({er_print_path(), "-script", script.string(), experiment()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(script.string() + ":3: unknown metric 'nosuch'"), std::string::npos) << r.err;
}

// As gprofng's: a bad line is reported and the script carries on; it fails
// at the end.
TEST_F(ErPrintScripting, ScriptCarriesOnAfterABadLineAndFailsAtTheEnd) {
  TempDir dir;
  const fs::path script = dir.path() / "bad-then-good.er";
  std::ofstream(script) << "format json\nsort nosuch\nmetrics e.totalcpu:name\nfunctions\n";
  const ProcessResult r = run_process({er_print_path(), "-script", script.string(), experiment()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find(script.string() + ":2: unknown metric 'nosuch'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 line failed"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(r.out), reference("e.totalcpu:name")) << "the lines after the bad one ran";
}

// gprofng accepts any unambiguous prefix of a command; a typo gets the
// nearest names.
TEST_F(ErPrintScripting, CommandsMayBeShortenedWhereUnambiguous) {
  const ProcessResult shortened =
      run_process({er_print_path(), "--format", "json", "-metrics", "e.totalcpu:name", "-func", experiment()});
  ASSERT_EQ(shortened.exit_code, 0) << shortened.err;
  EXPECT_EQ(json::parse(shortened.out), reference("e.totalcpu:name"));
  const ProcessResult ambiguous = run_process({er_print_path(), "-f", experiment()});
  EXPECT_EQ(ambiguous.exit_code, 2);
  EXPECT_NE(ambiguous.err.find("'-f' is ambiguous: functions, "), std::string::npos) << ambiguous.err;
  const ProcessResult typo = run_process({er_print_path(), "-functoins", experiment()});
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("unknown command '-functoins'; did you mean functions?"), std::string::npos) << typo.err;
}

// Several views in JSON make one document a parser reads whole; one view
// is that view's document, as before.
TEST_F(ErPrintScripting, SeveralJsonViewsAreOneDocument) {
  const ProcessResult r = run_process({er_print_path(), "--format=json", "-metrics", "e.totalcpu:name", "-functions",
                                       "-objects", "-header", experiment()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json document = json::parse(r.out);
  ASSERT_EQ(document.at("views").size(), 3u) << r.out;
  EXPECT_EQ(document.at("views").at(0), reference("e.totalcpu:name"));
  EXPECT_EQ(document.at("views").at(1).at("view"), "objects");
  // A failing command after them still leaves what the views made readable.
  const ProcessResult failing = run_process(
      {er_print_path(), "--format=json", "-metrics", "e.totalcpu:name", "-functions", "-objects", "-sort", "nosuch", experiment()});
  EXPECT_NE(failing.exit_code, 0);
  EXPECT_EQ(json::parse(failing.out).at("views").size(), 2u) << failing.out;
}

TEST_F(ErPrintScripting, VersionAndCommandsFromStandardInput) {
  const ProcessResult version = run_process({er_print_path(), "-V"});
  ASSERT_EQ(version.exit_code, 0) << version.err;
  EXPECT_EQ(version.out.rfind("er_print (lumen) ", 0), 0u) << version.out;
  const ProcessResult command = run_process({er_print_path(), experiment()}, {}, "version\n");
  EXPECT_EQ(command.out, version.out);
  // "-": the command line's commands, then those on standard input.
  const ProcessResult piped =
      run_process({er_print_path(), "--format=json", "-metrics", "e.totalcpu:name", "-", experiment()}, {}, "functions\n");
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_EQ(json::parse(piped.out), reference("e.totalcpu:name"));
}

TEST_F(ErPrintScripting, OutfileAndAppendfileCollectViews) {
  TempDir dir;
  const fs::path out = dir.path() / "views.json";
  const ProcessResult r = run_process({er_print_path(), "--format=json", "-metrics", "e.totalcpu:name", "-outfile", out.string(),
                                       "-functions", "-appendfile", out.string(), "-functions", "-outfile", "-", "-metric_list",
                                       experiment()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Standard output got only what followed "-outfile -".
  EXPECT_EQ(json::parse(r.out).at("view"), "metric_list");
  std::istringstream lines(read_file(out));
  const json functions = reference("e.totalcpu:name");
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
                                      "format json\n-metrics e.totalcpu:name\nfunctions\nbogus\nexit\nfunctions\n");
  EXPECT_EQ(r.exit_code, 1) << r.err;  // the bogus command failed
  EXPECT_NE(r.err.find("unknown command 'bogus'"), std::string::npos) << r.err;
  EXPECT_EQ(json::parse(r.out), reference("e.totalcpu:name"));  // exit stopped the second view
  const ProcessResult help = run_process({er_print_path(), experiment()}, {}, "help\n");
  EXPECT_NE(help.out.find("thread_select LIST"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("disasm FUNC|FILE"), std::string::npos) << help.out;
}

TEST_F(ErPrintScripting, DefaultsFilesSetMetricsSortAndName) {
  TempDir home;
  std::ofstream(home.path() / ".er.rc") << "dmetrics i.totalcpu:name\n"
                                        << "dsort name\n"
                                        << "name short\n"
                                        << "viewmode expert\n";
  const ProcessResult r = run_process({er_print_path(), "--format=json", "-functions", experiment()},
                                      {{"HOME", home.path().string()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json view = json::parse(r.out);
  ASSERT_EQ(view.at("metrics").size(), 1u);
  EXPECT_EQ(view.at("metrics").at(0).at("spec"), "i.totalcpu");
  std::vector<std::string> names;
  for (size_t i = 1; i < view.at("rows").size(); ++i) names.push_back(view.at("rows").at(i).at("name"));
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  // The command line overrides the defaults.
  const ProcessResult over = run_process({er_print_path(), "--format=json", "-metrics", "e.totalcpu:name", "-functions", experiment()},
                                         {{"HOME", home.path().string()}});
  ASSERT_EQ(over.exit_code, 0) << over.err;
  EXPECT_EQ(json::parse(over.out).at("metrics").at(0).at("spec"), "e.totalcpu");

  // A line that is not a setting is skipped with a warning; the rest applies.
  std::ofstream(home.path() / ".er.rc", std::ios::app) << "functions\ntabs on\n";
  const ProcessResult odd = run_process({er_print_path(), "--format=json", "-functions", experiment()},
                                        {{"HOME", home.path().string()}});
  ASSERT_EQ(odd.exit_code, 0) << odd.err;
  EXPECT_NE(odd.err.find(".er.rc:5: 'functions' is not a setting"), std::string::npos) << odd.err;
  EXPECT_NE(odd.err.find(".er.rc:6: 'tabs' is not a setting"), std::string::npos) << odd.err;
  EXPECT_EQ(json::parse(odd.out).at("metrics").at(0).at("spec"), "i.totalcpu") << "the settings before still apply";
}

// dmetrics lines add to one list, and an item applies where the experiment
// has its metric: one file serves every kind of experiment.
TEST_F(ErPrintScripting, DefaultMetricsApplyWhereTheExperimentHasThem) {
  TempDir home;
  std::ofstream(home.path() / ".er.rc") << "# heap metrics, for heap experiments: don't mind the apostrophe\n"
                                        << "dmetrics i.heapleakbytes:e!heapleakbytes\n"
                                        << "dmetrics ei%.totalcpu\n"
                                        << "dmetrics ie!.any\n"
                                        << "dmetrics !size:!address:name\n"
                                        << "dsort nosuch:i.totalcpu:name\n";
  const ProcessResult r = run_process({er_print_path(), "--format=json", "-functions", experiment()},
                                      {{"HOME", home.path().string()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const json view = json::parse(r.out);
  std::vector<std::string> specs;
  for (const json& m : view.at("metrics")) specs.push_back(m.at("spec"));
  EXPECT_EQ(specs, (std::vector<std::string>{"e.totalcpu", "e.%totalcpu", "i.totalcpu", "i.%totalcpu"})) << view.at("metrics").dump();
  const ProcessResult text = run_process({er_print_path(), "-functions", experiment()}, {{"HOME", home.path().string()}});
  EXPECT_NE(text.out.find("sorted by metric: Inclusive Total CPU Time"), std::string::npos)
      << "the first dsort item that applies sorts: " << text.out;
}

// As gprofng: every metric a dmetrics line names shows, in the order named
// (a flavor named again moves to its later place: a line after one that
// hides the CPU time's parts shows them), and the view sorts by a column it
// shows, never by one it hides.
TEST_F(ErPrintScripting, DefaultMetricsShowEveryItemNamedAndSortByAColumnShown) {
  TempDir home;
  auto view_with = [&](const std::string& rc, std::vector<std::string> args) {
    std::ofstream(home.path() / ".er.rc") << rc;
    args.insert(args.begin(), {er_print_path(), "--format=json"});
    args.push_back("-functions");
    args.push_back(experiment());
    const ProcessResult r = run_process(args, {{"HOME", home.path().string()}});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out);
  };
  auto specs = [](const json& view) {
    std::vector<std::string> shown;
    for (const json& m : view.at("metrics")) shown.push_back(m.at("spec"));
    return shown;
  };
  // Sorted by `key`, largest first (<Total> leads).
  auto sorted_by = [](const json& view, const std::string& key) {
    const json& rows = view.at("rows");
    for (size_t i = 2; i < rows.size(); ++i)
      if (rows[i - 1].at("values").at(key).get<double>() < rows[i].at("values").at(key).get<double>()) return false;
    return rows.size() > 2;
  };

  const json one = view_with("dmetrics e.%user:i.user:name\n", {});
  EXPECT_EQ(specs(one), (std::vector<std::string>{"e.user", "e.%user", "i.user"}));
  EXPECT_TRUE(sorted_by(one, "e.user")) << one.dump();

  const std::string after_gprofngs = "dmetrics ei%.totalcpu\ndmetrics i!.user:e!.user\ndmetrics e.%user:i.user:name\n";
  const json shown = view_with(after_gprofngs + "dsort i.system:i.user\n", {});
  EXPECT_EQ(specs(shown), (std::vector<std::string>{"e.totalcpu", "e.%totalcpu", "i.totalcpu", "i.%totalcpu", "e.user",
                                                    "e.%user", "i.user"}));
  EXPECT_TRUE(sorted_by(shown, "i.user")) << "i.system is not shown: " << shown.dump();

  // The sort command's first item shown sorts; none shown: the first column.
  EXPECT_TRUE(sorted_by(view_with(after_gprofngs, {"-sort", "e.system:i.user"}), "i.user"));
  const json hidden_sort = view_with("dmetrics i.user:name\n", {"-sort", "e.user"});
  EXPECT_EQ(specs(hidden_sort), std::vector<std::string>{"i.user"});
  EXPECT_TRUE(sorted_by(hidden_sort, "i.user")) << hidden_sort.dump();
  const ProcessResult text = run_process({er_print_path(), "-sort", "e.user", "-functions", experiment()},
                                         {{"HOME", home.path().string()}});
  EXPECT_NE(text.out.find("sorted by metric: Inclusive User CPU Time"), std::string::npos) << text.out;
}

// gprofng's own defaults file, copied to ~/.er.rc, leaves er_print working:
// what lumen does not know is skipped with a warning naming the line.
TEST_F(ErPrintScripting, GprofngsDefaultsFileLeavesEveryViewWorking) {
  const fs::path gprofng_rc = "/etc/gprofng.rc";
  if (!fs::exists(gprofng_rc)) GTEST_SKIP() << "no " << gprofng_rc << " (binutils' gprofng) on this machine";
  TempDir home;
  fs::copy_file(gprofng_rc, home.path() / ".er.rc");
  for (const char* view : {"-functions", "-callers-callees", "-calltree", "-header", "-thread_list"}) {
    const ProcessResult r = run_process({er_print_path(), "--format=json", view, experiment()},
                                        {{"HOME", home.path().string()}});
    ASSERT_EQ(r.exit_code, 0) << view << ": " << r.err;
    EXPECT_NO_THROW(json::parse(r.out)) << view << ": " << r.out;
    EXPECT_EQ(r.err.find("unterminated quote"), std::string::npos) << "comments are not parsed: " << r.err;
  }
}

}  // namespace
}  // namespace lumen::test
