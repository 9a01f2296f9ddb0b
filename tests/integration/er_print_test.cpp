// er_print's commands, formats and errors on real experiments.
#include <gtest/gtest.h>
#include <lumen/record_format.h>

#include <fstream>
#include <map>
#include <sstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

std::string er_print_path() { return (bin_dir() / "er_print").string(); }

class ErPrint : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    collection_ = new Collection(collect(*dir_, {"-p", "on"}, "threads_target", {"0.5"}));
  }
  static void TearDownTestSuite() {
    delete collection_;
    delete dir_;
  }
  static TempDir* dir_;
  static Collection* collection_;
};
TempDir* ErPrint::dir_ = nullptr;
Collection* ErPrint::collection_ = nullptr;

TEST_F(ErPrint, TextCsvAndJsonAgree) {
  const fs::path& e = collection_->experiment;
  const auto json = rows_by_name(er_print_json({"-metrics", "e.totalcpu:name", "-functions"}, e));
  const ProcessResult csv = run_process({er_print_path(), "--format=csv", "-metrics", "e.totalcpu:name", "-functions", e.string()});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')), "e.totalcpu,name,load_object");
  const ProcessResult text = run_process({er_print_path(), "-metrics", "e.totalcpu:name", "-functions", e.string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  char total[32];
  std::snprintf(total, sizeof total, "%.3f", json.at("<Total>").at("e.totalcpu").get<double>());
  EXPECT_NE(text.out.find(total), std::string::npos) << text.out;
  EXPECT_NE(csv.out.find("spin_b,threads_target"), std::string::npos) << csv.out;
}

TEST_F(ErPrint, SortAndLimit) {
  const auto view = er_print_json({"-metrics", "i.totalcpu:name", "-sort", "i.totalcpu", "-limit", "2", "-functions"},
                                  collection_->experiment);
  ASSERT_EQ(view.at("rows").size(), 3u);  // <Total> and two functions
  EXPECT_EQ(view.at("rows").at(0).at("name"), "<Total>");
  EXPECT_GE(view.at("rows").at(1).at("values").at("i.totalcpu").get<double>(),
            view.at("rows").at(2).at("values").at("i.totalcpu").get<double>());
  const auto by_name = er_print_json({"-sort", "name", "-functions"}, collection_->experiment);
  std::vector<std::string> names;
  for (size_t i = 1; i < by_name.at("rows").size(); ++i) names.push_back(by_name.at("rows").at(i).at("name"));
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST_F(ErPrint, PercentagesAreOfTotal) {
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.%totalcpu:e.totalcpu:name", "-functions"}, collection_->experiment));
  const double total = rows.at("<Total>").at("e.totalcpu").get<double>();
  EXPECT_DOUBLE_EQ(rows.at("<Total>").at("e.%totalcpu").get<double>(), 100.0);
  const double spin_b = rows.at("spin_b").at("e.totalcpu").get<double>();
  EXPECT_NEAR(rows.at("spin_b").at("e.%totalcpu").get<double>(), 100.0 * spin_b / total, 1e-6);
}

TEST_F(ErPrint, CallersCalleesAttributedSharesAddUp) {
  const auto cc = er_print_json({"-metrics", "a.totalcpu:i.totalcpu:name", "-callers-callees"}, collection_->experiment);
  EXPECT_EQ(cc.at("view"), "callers-callees");
  for (const auto& row : cc.at("rows")) {
    if (row.at("name") == "<Total>") continue;
    double from_callers = 0, to_callees = row.at("values").at("a.totalcpu").get<double>();
    for (const auto& c : row.at("callers")) from_callers += c.at("values").at("a.totalcpu").get<double>();
    for (const auto& c : row.at("callees")) to_callees += c.at("values").at("a.totalcpu").get<double>();
    const double inclusive = row.at("values").at("i.totalcpu").get<double>();
    EXPECT_NEAR(from_callers, inclusive, 1e-6) << row.at("name");
    EXPECT_NEAR(to_callees, inclusive, 1e-6) << row.at("name");
  }
}

TEST_F(ErPrint, ObjectsAndHeaderAndMetricList) {
  const auto objects = rows_by_name(er_print_json({"-metrics", "e.totalcpu:name", "-objects"}, collection_->experiment));
  EXPECT_TRUE(objects.count("threads_target"));
  EXPECT_TRUE(objects.count("<Total>"));
  const auto header = er_print_json({"-header"}, collection_->experiment).at("experiments").at(0);
  EXPECT_EQ(header.at("exit_code"), 0);
  EXPECT_NE(header.at("command").get<std::string>().find("threads_target"), std::string::npos);
  const auto metrics = er_print_json({"-metric_list"}, collection_->experiment);
  EXPECT_EQ(metrics.at("metrics").at(0).at("keyword"), "totalcpu");
  EXPECT_EQ(metrics.at("metrics").at(0).at("unit"), "sec.");
}

// Each command once (a view several plugins offer once per plugin, each
// with its part): a view an installed plugin offers is never listed again as
// "not offered".
TEST_F(ErPrint, HelpListsEachCommandOnce) {
  const ProcessResult r = run_process({er_print_path(), "-help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::map<std::string, int> listed;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("  ", 0) != 0 || line.size() < 3 || line[2] == ' ') continue;
    const size_t plugin = line.rfind(" [");
    const std::string offered_by = plugin != std::string::npos && line.back() == ']' ? line.substr(plugin) : "";
    ++listed[line.substr(2, line.find(' ', 2) - 2) + offered_by];
  }
  EXPECT_GT(listed.size(), 50u) << r.out;
  for (const auto& [command, times] : listed) EXPECT_EQ(times, 1) << command << " is listed " << times << " times";
  EXPECT_EQ(listed.count("ioactivity [io]"), 1u);
  EXPECT_EQ(listed.count("ioactivity"), 0u);
  EXPECT_EQ(r.out.find("ioactivity              not offered"), std::string::npos) << r.out;
}

TEST_F(ErPrint, InteractivePromptReadsCommandsFromStdin) {
  const ProcessResult r = run_process({er_print_path(), collection_->experiment.string()}, {},
                                      "metrics e.totalcpu:name\nlimit 1\nfunctions\nquit\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("<Total>"), std::string::npos) << r.out;
}

TEST_F(ErPrint, BadCommandsAndSpecsAreRefusedClearly) {
  const std::string e = collection_->experiment.string();
  ProcessResult r = run_process({er_print_path(), "-bogus", e});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("unknown command '-bogus'"), std::string::npos) << r.err;
  r = run_process({er_print_path(), "-metrics", "e.nosuch:name", "-functions", e});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("unknown metric 'nosuch'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("available: totalcpu, user, system"), std::string::npos) << r.err;
}

TEST(ErPrintInput, NotAnExperimentAndCorruptDataAreReportedWithFileAndOffset) {
  TempDir dir;
  ProcessResult r = run_process({er_print_path(), "-functions", dir.path().string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("not an experiment"), std::string::npos) << r.err;

  const Collection c = collect(dir, {}, "threads_target", {"0.2"});
  ASSERT_EQ(c.run.exit_code, 0);
  // The first record word of the second block written (blocks are where
  // the writers' runs put them; holes between them read as zeros).
  uint64_t corrupted = 0;
  {
    std::fstream profile(c.experiment / "profile", std::ios::in | std::ios::out | std::ios::binary);
    int written_blocks = 0;
    for (uint64_t at = 0; corrupted == 0; at += LUMEN_BLOCK_BYTES) {
      lumen_block_header header{};
      profile.seekg(static_cast<std::streamoff>(at));
      if (!profile.read(reinterpret_cast<char*>(&header), sizeof header)) break;
      if (header.magic == LUMEN_BLOCK_MAGIC && ++written_blocks == 2) corrupted = at + sizeof header;
    }
    ASSERT_NE(corrupted, 0u) << "fewer than two blocks in the profile";
    profile.clear();
    profile.seekp(static_cast<std::streamoff>(corrupted));
    const uint32_t bogus = 0xfff00001u;  // kind 1, 65520 payload bytes
    profile.write(reinterpret_cast<const char*>(&bogus), 4);
  }
  r = run_process({er_print_path(), "-functions", c.experiment.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("profile at offset " + std::to_string(corrupted)), std::string::npos) << r.err;
}

TEST(ErPrintInput, NewerFormatIsRefusedWithTheVersionNeeded) {
  TempDir dir;
  const Collection c = collect(dir, {}, "threads_target", {"0.1"});
  ASSERT_EQ(c.run.exit_code, 0);
  std::ifstream in(c.experiment / "header.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("major: 1"), 8, "major: 9");
  std::ofstream(c.experiment / "header.yaml") << text;
  const ProcessResult r = run_process({er_print_path(), "-functions", c.experiment.string()});
  EXPECT_EQ(r.exit_code, 1);
  const size_t minor = text.find("minor: ") + 7;
  const std::string written = "format 9." + text.substr(minor, text.find_first_not_of("0123456789", minor) - minor);
  EXPECT_NE(r.err.find(written + "; this lumen reads format 1.x: a newer lumen is needed"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace lumen::test
