// Functions inlined into one another (inline_chain_target: ten levels of
// templates, a lambda and always_inline inside chain::run_chain, built
// -O2 -g): with -inline on each level is a frame, outermost caller first,
// as binutils' addr2line -i (its own DWARF reader) gives the chain at the
// sampled instructions, and each level's inclusive time is what the level
// measured of itself. -source accepts each level's name and shows the file
// defining it; -disasm names the file of an interleaved line where it
// changes.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kHolder = "chain::run_chain(double)";

double value(const json& row, const std::string& key) { return row.at("values").at(key).get<double>(); }

// addr2line -i -f -C at `address` of `binary`: the function at each level,
// innermost first, the function holding them last.
std::vector<std::string> addr2line_chain(const fs::path& binary, const std::string& address) {
  const ProcessResult r = run_process({LUMEN_TEST_ADDR2LINE, "-i", "-f", "-C", "-e", binary.string(), address});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> names;
  std::istringstream lines(r.out);
  for (std::string name, place; std::getline(lines, name) && std::getline(lines, place);) names.push_back(name);
  return names;
}

std::vector<std::string> file_lines(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

class InlineChains : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    run_ = new Collection(collect(*dir_, {"-p", "on"}, "inline_chain_target", {"0.4"}));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete dir_;
  }
  static const fs::path& experiment() { return run_->experiment; }
  static const json& truth() { return run_->truth.at("functions"); }
  static fs::path binary() { return target_dir() / "inline_chain_target"; }

  static TempDir* dir_;
  static Collection* run_;
};
TempDir* InlineChains::dir_ = nullptr;
Collection* InlineChains::run_ = nullptr;

TEST_F(InlineChains, EveryLevelIsAFrameAsAddr2lineGivesIt) {
  if (std::string(LUMEN_TEST_ADDR2LINE).empty()) GTEST_SKIP() << "no addr2line (binutils) to compare with";
  ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
  // The instruction of the holder with the most samples: the innermost
  // level's loop.
  const json disasm = er_print_json({"-metrics", "e.totalcpu:name", "-disasm", kHolder}, experiment());
  std::string hottest;
  double most = 0;
  for (const json& row : disasm.at("rows"))
    if (row.at("kind") == "instruction" && value(row, "e.totalcpu") > most) {
      most = value(row, "e.totalcpu");
      hottest = row.at("address");
    }
  ASSERT_FALSE(hottest.empty());
  const std::vector<std::string> expected = addr2line_chain(binary(), hottest);
  ASSERT_GE(expected.size(), 11u) << "ten inlined levels and the holder";
  ASSERT_EQ(expected.back(), kHolder);
  EXPECT_EQ(expected.front(), "chain::Innermost::work(double)");

  // The call tree holds the chain under the holder, outermost first, with
  // the time of the instruction's samples at its innermost level.
  const json tree = er_print_json({"-inline", "on", "-metrics", "e.totalcpu:i.totalcpu:name", "-calltree"}, experiment());
  const json& rows = tree.at("rows");
  bool found = false;
  for (size_t i = 0; i < rows.size() && !found; ++i) {
    if (rows[i].at("name") != kHolder) continue;
    // Follow, from the holder, the child named as the next level out.
    size_t at = i;
    size_t level = expected.size() - 1;
    while (level > 0) {
      const int depth = rows[at].at("depth");
      size_t next = at + 1;
      while (next < rows.size() && rows[next].at("depth").get<int>() > depth &&
             !(rows[next].at("depth").get<int>() == depth + 1 && rows[next].at("name") == expected[level - 1]))
        ++next;
      if (next >= rows.size() || rows[next].at("depth").get<int>() != depth + 1) break;
      at = next;
      --level;
    }
    EXPECT_EQ(level, 0u) << "the call tree stops at " << rows[at].at("name") << ", above " << expected[level - 1];
    found = level == 0;
    if (found) {
      EXPECT_GE(value(rows[at], "e.totalcpu"), most - 1e-9);
    }
  }
  EXPECT_TRUE(found);
}

TEST_F(InlineChains, InclusiveTimeOfEachLevelIsWhatItMeasured) {
  ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
  const auto functions =
      rows_by_name(er_print_json({"-inline", "on", "-metrics", "e.totalcpu:i.totalcpu:name", "-functions"}, experiment()));
  ASSERT_EQ(truth().size(), 11u);
  for (const auto& [name, seconds] : truth().items()) {
    ASSERT_EQ(functions.count(name), 1u) << name;
    const double measured = seconds.get<double>();
    EXPECT_NEAR(functions.at(name).at("i.totalcpu").get<double>(), measured, sampling_tolerance(measured, 0.01)) << name;
  }
  // Inlined levels take nothing from the totals.
  const auto plain = rows_by_name(er_print_json({"-metrics", "e.totalcpu:i.totalcpu:name", "-functions"}, experiment()));
  EXPECT_NEAR(plain.at("<Total>").at("e.totalcpu").get<double>(), functions.at("<Total>").at("e.totalcpu").get<double>(), 1e-6);
  EXPECT_NEAR(plain.at(kHolder).at("i.totalcpu").get<double>(), functions.at(kHolder).at("i.totalcpu").get<double>(), 1e-6);
}

TEST_F(InlineChains, SourceShowsTheFileDefiningEachLevelWithItsLines) {
  ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
  const fs::path source = fs::path(LUMEN_TEST_SOURCE_DIR) / "tests/targets/inline_chain_target.cpp";
  const std::vector<std::string> text = file_lines(source);
  ASSERT_FALSE(text.empty());
  // Each name -inline on shows, with -inline on and off.
  for (const std::vector<std::string>& mode : {std::vector<std::string>{}, std::vector<std::string>{"-inline", "on"}})
    for (const auto& [name, seconds] : truth().items()) {
      std::vector<std::string> args = mode;
      args.insert(args.end(), {"-metrics", "e.totalcpu:i.totalcpu:name", "-source", name});
      const json view = er_print_json(args, experiment());
      std::vector<std::string> files;
      double inclusive = 0;
      for (const json& row : view.at("rows")) {
        if (row.at("kind") == "file") files.push_back(row.at("name"));
        if (row.at("kind") == "line") inclusive = std::max(inclusive, value(row, "i.totalcpu"));
      }
      ASSERT_EQ(files.size(), 1u) << name;
      EXPECT_TRUE(files[0].ends_with("/tests/targets/inline_chain_target.cpp")) << name << ": " << files[0];
      // With its metrics: the line of its call of the next level in (or
      // of its loop, innermost) has most of its time.
      EXPECT_GT(inclusive, 0.5 * seconds.get<double>()) << name;
    }
  // The innermost level's loop (a macro, at the line that expands it):
  // its line's exclusive time is what the level measured, less its clock
  // readings.
  const json innermost = er_print_json({"-metrics", "e.totalcpu:name", "-source", "chain::Innermost::work(double)"}, experiment());
  double hottest = 0;
  std::string hottest_text;
  for (const json& row : innermost.at("rows"))
    if (row.at("kind") == "line" && value(row, "e.totalcpu") > hottest) {
      hottest = value(row, "e.totalcpu");
      hottest_text = row.at("name");
    }
  EXPECT_NE(hottest_text.find("SPIN_FOR(seconds);"), std::string::npos) << hottest_text;
  const double measured = truth().at("chain::Innermost::work(double)").get<double>();
  EXPECT_NEAR(hottest, measured, sampling_tolerance(measured, 0.01));
}

TEST_F(InlineChains, DisassemblyNamesTheFileOfEachLineWhereItChanges) {
  ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
  const json disasm = er_print_json({"-metrics", "e.totalcpu:name", "-disasm", kHolder}, experiment());
  std::map<std::string, std::vector<std::string>> texts;
  std::string file;
  std::set<std::string> files;
  size_t lines = 0;
  for (const json& row : disasm.at("rows")) {
    if (row.at("kind") != "source") continue;
    const std::string name = row.at("name");
    ASSERT_EQ(name.rfind("<line ", 0), 0u) << name;
    const size_t close = name.find("> ");
    const std::string label = name.substr(6, close - 6);  // "N" or "N in FILE"
    const size_t in = label.find(" in ");
    if (in != std::string::npos) {
      EXPECT_NE(label.substr(in + 4), file) << "named again without a change: " << name;
      file = label.substr(in + 4);
      files.insert(file);
    }
    ASSERT_FALSE(file.empty()) << "the first line names its file: " << name;
    // The text shown is that line of the file named last.
    if (!texts.count(file)) texts[file] = file_lines(file);
    const int n = std::stoi(label);
    ASSERT_LE(n, static_cast<int>(texts[file].size())) << name;
    EXPECT_EQ(name.substr(close + 2), texts[file][n - 1]) << name;
    ++lines;
  }
  EXPECT_GT(lines, 20u);
  // Its own file and truth.h, whose clock reading every level inlines.
  EXPECT_EQ(files.size(), 2u);
}

}  // namespace
}  // namespace lumen::test
