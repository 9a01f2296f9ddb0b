// er_print's views beyond functions and callers-callees, checked on real
// experiments: numbers against what the targets measured of themselves, and
// against each other where two views count the same events.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <numeric>
#include <set>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string er_print_path() { return (bin_dir() / "er_print").string(); }

double value(const json& row, const std::string& key) { return row.at("values").at(key).get<double>(); }

// The rows of a view whose field `key` equals `wanted`.
std::vector<json> rows_where(const json& view, const std::string& key, const std::string& wanted) {
  std::vector<json> rows;
  for (const json& row : view.at("rows"))
    if (row.contains(key) && row.at(key) == wanted) rows.push_back(row);
  return rows;
}

double sum_of(const std::vector<json>& rows, const std::string& key) {
  double sum = 0;
  for (const json& row : rows) sum += value(row, key);
  return sum;
}

double total_of(const json& view, const std::string& key) {
  for (const json& row : view.at("rows"))
    if (row.at("name") == "<Total>") return value(row, key);
  ADD_FAILURE() << "no <Total> row";
  return 0;
}

class ErPrintViews : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    // Periodic samples every 0.1 s over about 1.5 s of CPU in four threads.
    threads_ = new Collection(collect(*dir_, {"-p", "on", "-S", "0.1", "-states", "off"}, "threads_target", {"1.0"}));
    recursive_dir_ = new TempDir;
    recursive_ = new Collection(collect(*recursive_dir_, {"-p", "on"}, "recursive_target"));
  }
  static void TearDownTestSuite() {
    delete threads_;
    delete recursive_;
    delete dir_;
    delete recursive_dir_;
  }
  static const fs::path& threads() { return threads_->experiment; }
  static double truth(const std::string& function) { return threads_->truth.at("functions").at(function).get<double>(); }
  static double tolerance(double seconds) { return sampling_tolerance(seconds, 0.01); }

  static TempDir* dir_;
  static TempDir* recursive_dir_;
  static Collection* threads_;
  static Collection* recursive_;
};
TempDir* ErPrintViews::dir_ = nullptr;
TempDir* ErPrintViews::recursive_dir_ = nullptr;
Collection* ErPrintViews::threads_ = nullptr;
Collection* ErPrintViews::recursive_ = nullptr;

TEST_F(ErPrintViews, FsingleGivesTheFunctionsMetricsAndWhereItIs) {
  ASSERT_EQ(threads_->run.exit_code, 0) << threads_->run.err;
  const auto functions = rows_by_name(er_print_json({"-metrics", "e.totalcpu:i.totalcpu:name", "-functions"}, threads()));
  const json single = er_print_json({"-metrics", "e.totalcpu:i.totalcpu:name", "-fsingle", "spin_b"}, threads());
  ASSERT_EQ(single.at("view"), "fsingle");
  ASSERT_EQ(single.at("records").size(), 1u);
  const json& r = single.at("records").at(0);
  EXPECT_EQ(r.at("name"), "spin_b");
  EXPECT_DOUBLE_EQ(r.at("i.totalcpu").get<double>(), functions.at("spin_b").at("i.totalcpu").get<double>());
  EXPECT_NEAR(r.at("i.totalcpu").get<double>(), truth("spin_b"), tolerance(truth("spin_b")));
  EXPECT_GT(r.at("size").get<double>(), 0);
  EXPECT_NE(r.at("address").get<std::string>(), "");
  EXPECT_TRUE(r.at("source_file").get<std::string>().ends_with("threads_target.c")) << r.dump();
  EXPECT_EQ(r.at("load_object"), "threads_target");

  const json summary = er_print_json({"-metrics", "i.totalcpu:name", "-fsummary"}, threads());
  double spin_sum = 0;
  for (const json& rec : summary.at("records"))
    if (rec.at("name").get<std::string>().rfind("spin_", 0) == 0) spin_sum += rec.at("i.totalcpu").get<double>();
  double truth_sum = 0;
  for (const char* f : {"spin_main", "spin_a", "spin_b", "spin_c"}) truth_sum += truth(f);
  EXPECT_NEAR(spin_sum, truth_sum, tolerance(truth_sum));

  const ProcessResult missing = run_process({er_print_path(), "-fsingle", "no_such_function", threads().string()});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("no function named 'no_such_function'"), std::string::npos) << missing.err;
}

TEST_F(ErPrintViews, CsingleShowsOneFunctionWithItsCallersAndCallees) {
  const json cs = er_print_json({"-metrics", "a.totalcpu:i.totalcpu:name", "-csingle", "spin_b"}, threads());
  ASSERT_EQ(cs.at("rows").size(), 1u);
  const json& row = cs.at("rows").at(0);
  EXPECT_EQ(row.at("name"), "spin_b");
  ASSERT_EQ(row.at("callers").size(), 1u);
  EXPECT_EQ(row.at("callers").at(0).at("name"), "thread_b");
  EXPECT_DOUBLE_EQ(value(row.at("callers").at(0), "a.totalcpu"), value(row, "i.totalcpu"));
  EXPECT_NEAR(value(row, "i.totalcpu"), truth("spin_b"), tolerance(truth("spin_b")));
}

TEST_F(ErPrintViews, CalltreeNodesHoldTheirChildren) {
  const json tree = er_print_json({"-metrics", "e.totalcpu:i.totalcpu:name", "-calltree"}, threads());
  const auto& rows = tree.at("rows");
  ASSERT_GT(rows.size(), 3u);
  EXPECT_EQ(rows.at(0).at("name"), "<Total>");
  EXPECT_EQ(rows.at(0).at("depth"), 0);
  // Depth first: a node's children follow it at depth + 1 until a row at its
  // depth or above; inclusive = exclusive + the children's inclusive.
  for (size_t i = 0; i < rows.size(); ++i) {
    const int depth = rows[i].at("depth");
    double children = 0;
    for (size_t j = i + 1; j < rows.size() && rows[j].at("depth").get<int>() > depth; ++j)
      if (rows[j].at("depth").get<int>() == depth + 1) children += value(rows[j], "i.totalcpu");
    EXPECT_NEAR(value(rows[i], "i.totalcpu"), value(rows[i], "e.totalcpu") + children, 1e-6) << rows[i].at("name");
  }
  // spin_b is reached once, under thread_b, with what spin_b measured.
  int found = 0;
  for (size_t i = 1; i < rows.size(); ++i)
    if (rows[i].at("name") == "spin_b") {
      ++found;
      EXPECT_EQ(rows[i - 1].at("name"), "thread_b");
      EXPECT_EQ(rows[i].at("depth").get<int>(), rows[i - 1].at("depth").get<int>() + 1);
      EXPECT_NEAR(value(rows[i], "i.totalcpu"), truth("spin_b"), tolerance(truth("spin_b")));
    }
  EXPECT_EQ(found, 1);
}

TEST_F(ErPrintViews, CalltreeKeepsRecursionAsNestedCalls) {
  ASSERT_EQ(recursive_->run.exit_code, 0) << recursive_->run.err;
  const json tree = er_print_json({"-metrics", "e.totalcpu:i.totalcpu:name", "-calltree"}, recursive_->experiment);
  int deepest = -1, first = -1;
  double bottom = 0;
  for (const json& row : tree.at("rows")) {
    const std::string name = row.at("name");
    if (name == "lumen::test::descend(int, double)") {
      if (first < 0) first = row.at("depth");
      deepest = std::max(deepest, row.at("depth").get<int>());
    }
    if (name == "lumen::test::bottom_work(double)") bottom += value(row, "i.totalcpu");
  }
  EXPECT_EQ(deepest - first, 9);  // descend(9) .. descend(0): ten levels
  const json& truth = recursive_->truth.at("functions");
  const double truth_bottom = truth.at("lumen::test::bottom_work(double)").get<double>();
  EXPECT_NEAR(bottom, truth_bottom, sampling_tolerance(truth_bottom, 0.01));
  // Each level's node holds what that call and the calls below it took,
  // counted once: descend(L) spans the levels L .. 0 and bottom_work.
  std::map<int, double> level_inclusive;
  for (const json& row : tree.at("rows"))
    if (row.at("name") == "lumen::test::descend(int, double)")
      level_inclusive[9 - (row.at("depth").get<int>() - first)] += value(row, "i.totalcpu");
  double below = truth_bottom;
  for (int level = 0; level <= 9; ++level) {
    below += truth.at("descend level " + std::to_string(level)).get<double>();
    EXPECT_NEAR(level_inclusive[level], below, sampling_tolerance(below, 0.01)) << "level " << level;
  }
}

TEST_F(ErPrintViews, NameStylesLongShortMangled) {
  auto names = [&](const std::string& style) {
    std::set<std::string> set;
    const json view = er_print_json({"-name", style, "-functions"}, recursive_->experiment);
    for (const json& row : view.at("rows")) set.insert(row.at("name").get<std::string>());
    return set;
  };
  EXPECT_TRUE(names("long").count("lumen::test::descend(int, double)"));
  EXPECT_TRUE(names("short").count("lumen::test::descend"));
  EXPECT_TRUE(names("mangled").count("_ZN5lumen4test7descendEid"));
  // gprofng's suffix: each name carries its load object; the style stays.
  EXPECT_TRUE(names("short:soname").count("lumen::test::descend [<recursive_target>]"));
  EXPECT_TRUE(names(":soname").count("lumen::test::descend(int, double) [<recursive_target>]"));
  EXPECT_TRUE(names(":soname").count("<Total>")) << "artificial functions have no load object";
  EXPECT_TRUE(names("long:nosoname").count("lumen::test::descend(int, double)"));
  const json single = er_print_json({"-name", "short", "-fsingle", "lumen::test::descend"}, recursive_->experiment);
  EXPECT_EQ(single.at("records").at(0).at("mangled_name"), "_ZN5lumen4test7descendEid");
  const ProcessResult bad = run_process({er_print_path(), "-name", "fancy", "-functions", recursive_->experiment.string()});
  EXPECT_NE(bad.err.find("unknown name style 'fancy'"), std::string::npos) << bad.err;
  EXPECT_EQ(run_process({er_print_path(), "-viewmode", "machine", "-functions", recursive_->experiment.string()}).exit_code, 0);
}

TEST_F(ErPrintViews, PcsAndLinesAccountForEveryLeafSample) {
  const json pcs = er_print_json({"-metrics", "e.totalcpu:name", "-pcs"}, threads());
  double pcs_sum = 0;
  for (const json& row : pcs.at("rows"))
    if (row.at("name") != "<Total>") pcs_sum += value(row, "e.totalcpu");
  EXPECT_NEAR(pcs_sum, total_of(pcs, "e.totalcpu"), 1e-6);  // every PC was in a mapped object

  const json lines = er_print_json({"-metrics", "e.totalcpu:i.totalcpu:name", "-lines"}, threads());
  double target_lines = 0;
  for (const json& row : lines.at("rows")) {
    const std::string file = row.at("file");
    if (file.ends_with("threads_target.c") || file.ends_with("truth.h")) target_lines += value(row, "e.totalcpu");
  }
  // The target's own code (with line information) holds what its spin
  // functions measured, less the time inside clock_gettime (libc, vdso).
  const auto functions = rows_by_name(er_print_json({"-metrics", "e.totalcpu:name", "-functions"}, threads()));
  double target_functions = 0;
  for (const auto& [name, values] : functions)
    if (name.rfind("spin_", 0) == 0 || name.rfind("thread_", 0) == 0 || name == "main") target_functions += values.at("e.totalcpu").get<double>();
  EXPECT_NEAR(target_lines, target_functions, 1e-6);
  // A line row names its function and line.
  bool named = false;
  for (const json& row : lines.at("rows"))
    named = named || row.at("name").get<std::string>().find(", line ") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST_F(ErPrintViews, SourceAnnotatesEachLineAndMarksTheHotOnes) {
  // The spin functions' loop is burn_cpu, inlined from truth.h: its lines
  // hold the samples.
  const json source = er_print_json({"-metrics", "e.totalcpu:name", "-source", "truth.h"}, threads());
  const auto file_rows = rows_where(source, "kind", "file");
  ASSERT_EQ(file_rows.size(), 1u);
  const auto lines = rows_where(source, "kind", "line");
  // The whole file is shown, line by line, with its text.
  std::ifstream in(fs::path(LUMEN_TEST_SOURCE_DIR) / "tests/targets/truth.h");
  std::vector<std::string> text;
  for (std::string line; std::getline(in, line);) text.push_back(line);
  ASSERT_GE(lines.size(), text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    EXPECT_EQ(lines[i].at("line"), std::to_string(i + 1));
    EXPECT_EQ(lines[i].at("name"), text[i]);
  }
  // Its lines carry what -lines gives them; the hottest is marked.
  const json all_lines = er_print_json({"-metrics", "e.totalcpu:name", "-lines"}, threads());
  double expected = 0;
  for (const json& row : all_lines.at("rows"))
    if (row.at("file").get<std::string>().ends_with("/truth.h")) expected += value(row, "e.totalcpu");
  EXPECT_NEAR(sum_of(lines, "e.totalcpu"), expected, 1e-6);
  EXPECT_GT(expected, 0);
  const auto hottest = std::max_element(lines.begin(), lines.end(), [](const json& a, const json& b) { return value(a, "e.totalcpu") < value(b, "e.totalcpu"); });
  ASSERT_GT(value(*hottest, "e.totalcpu"), 0);
  EXPECT_EQ(hottest->at("marker"), "## ");
  for (const json& row : lines)
    EXPECT_EQ(row.at("marker") == "## ", value(row, "e.totalcpu") >= 0.75 * value(*hottest, "e.totalcpu") && value(row, "e.totalcpu") > 0)
        << row.dump();
  // -sthresh 100 keeps only the hottest line(s).
  const json strict = er_print_json({"-metrics", "e.totalcpu:name", "-sthresh", "100", "-source", "truth.h"}, threads());
  for (const json& row : rows_where(strict, "kind", "line"))
    EXPECT_EQ(row.at("marker") == "## ", value(row, "e.totalcpu") == value(*hottest, "e.totalcpu"));
}

TEST_F(ErPrintViews, SourcePathsFindAMovedSourceTree) {
  TempDir moved;
  // Where the debug information says the source is.
  const fs::path original = fs::path(er_print_json({"-fsingle", "spin_b"}, threads())
                                         .at("records").at(0).at("source_file").get<std::string>())
                                .parent_path();
  {
    std::ifstream in(original / "threads_target.c");
    std::ofstream out(moved.path() / "threads_target.c");
    for (std::string line; std::getline(in, line);) out << "MOVED " << line << "\n";
  }
  const json mapped = er_print_json({"-pathmap", original.string(), moved.path().string(), "-source", "spin_b"}, threads());
  EXPECT_EQ(rows_where(mapped, "kind", "line").at(0).at("name").get<std::string>().rfind("MOVED ", 0), 0u);
  // -setpath with only the moved directory: the recorded path still wins
  // when it exists, so hide nothing; -addpath puts a directory after it.
  const json added = er_print_json({"-setpath", moved.path().string(), "-source", "spin_b"}, threads());
  EXPECT_NE(rows_where(added, "kind", "file").at(0).at("name").get<std::string>().find("threads_target.c"), std::string::npos);
}

TEST_F(ErPrintViews, DisasmAttributesEverySampleOfTheFunctionToItsInstructions) {
  const json single = er_print_json({"-metrics", "e.totalcpu:name", "-fsingle", "spin_b"}, threads());
  const double exclusive = single.at("records").at(0).at("e.totalcpu").get<double>();
  const json disasm = er_print_json({"-metrics", "e.totalcpu:name", "-disasm", "spin_b"}, threads());
  const auto instructions = rows_where(disasm, "kind", "instruction");
  ASSERT_GT(instructions.size(), 3u);
  EXPECT_NEAR(sum_of(instructions, "e.totalcpu"), exclusive, 1e-6);
  EXPECT_FALSE(rows_where(disasm, "kind", "source").empty());  // source lines interleaved
  bool has_ret = false;
  for (const json& row : instructions) has_ret = has_ret || row.at("name").get<std::string>().find(":  ret") != std::string::npos;
  EXPECT_TRUE(has_ret);
  // spin_b reads its CPU clock: calls through the PLT are named by the
  // function the stub jumps to.
  bool plt_call = false;
  for (const json& row : instructions)
    plt_call = plt_call || row.at("name").get<std::string>().find("call 0x") != std::string::npos &&
                               row.at("name").get<std::string>().ends_with(" <clock_gettime@plt>");
  EXPECT_TRUE(plt_call);
  if (exclusive > 0) {
    bool marked = false;
    for (const json& row : instructions) marked = marked || row.at("marker") == "## ";
    EXPECT_TRUE(marked);
  }
}

TEST_F(ErPrintViews, ThreadListAndThreadSelectAgree) {
  const json list = er_print_json({"-metrics", "e.totalcpu:name", "-thread_list"}, threads());
  ASSERT_EQ(list.at("rows").size(), 4u);
  double sum = 0;
  for (const json& row : list.at("rows")) {
    const std::string number = row.at("thread");
    const json selected = er_print_json({"-metrics", "e.totalcpu:i.totalcpu:name", "-thread_select", number, "-functions"}, threads());
    EXPECT_NEAR(total_of(selected, "e.totalcpu"), value(row, "e.totalcpu"), 1e-6);
    sum += value(row, "e.totalcpu");
    // Each thread ran one spin function: its total is what that function measured.
    const auto rows = rows_by_name(selected);
    int spins = 0;
    for (const char* f : {"spin_main", "spin_a", "spin_b", "spin_c"})
      if (rows.count(f)) {
        ++spins;
        EXPECT_NEAR(rows.at(f).at("i.totalcpu").get<double>(), truth(f), tolerance(truth(f))) << f;
      }
    EXPECT_EQ(spins, 1) << selected.dump();
  }
  const json all = er_print_json({"-metrics", "e.totalcpu:name", "-functions"}, threads());
  EXPECT_NEAR(sum, total_of(all, "e.totalcpu"), 1e-6);
  const ProcessResult bad = run_process({er_print_path(), "-thread_select", "2-x", "-functions", threads().string()});
  EXPECT_NE(bad.err.find("'2-x' is not a thread list"), std::string::npos) << bad.err;
}

// -event_list lists the events the other views count, one by one: all of
// them add up to -functions' total and -timeline's events, each in the
// thread that ran it (threads_target's threads each spin in a function of
// their own), in time order; a count or -limit takes the first in time.
TEST_F(ErPrintViews, EventListHoldsEachCountedEventInTimeOrder) {
  const json all = er_print_json({"-metrics", "e.totalcpu:name", "-event_list", "100000"}, threads());
  const json& events = all.at("tables").at(0).at("rows");
  ASSERT_GT(events.size(), 50u);
  EXPECT_EQ(all.at("summary").at("selected").get<size_t>(), events.size());
  EXPECT_EQ(all.at("summary").at("listed").get<size_t>(), events.size());
  double cpu = 0;
  double last = -1;
  const std::map<std::string, std::string> spin_of = {{"1", "spin_main"}, {"2", "spin_a"}, {"3", "spin_b"}, {"4", "spin_c"}};
  for (const json& event : events) {
    cpu += value(event, "e.totalcpu");
    const double time = std::stod(event.at("time").get<std::string>());
    EXPECT_GE(time, last);
    last = time;
    EXPECT_EQ(event.at("data"), "clock");
    EXPECT_NEAR(std::stod(event.at("span").get<std::string>()), value(event, "e.totalcpu"), 1e-9) << event.dump();
    bool in_spin = false;
    for (const json& frame : event.at("stack")) in_spin |= frame.at("function") == spin_of.at(event.at("thread"));
    const json& leaf = event.at("stack").at(0).at("function");
    EXPECT_EQ(leaf, event.at("name"));
    // main's samples before it started spinning (thread creation) are not in spin_main.
    if (event.at("thread") != "1") EXPECT_TRUE(in_spin) << event.dump();
  }
  EXPECT_NEAR(cpu, total_of(er_print_json({"-metrics", "e.totalcpu:name", "-functions"}, threads()), "e.totalcpu"), 1e-6);
  const json timeline = er_print_json({"-timeline"}, threads());
  size_t binned = 0;
  for (const json& bin : timeline.at("rows")) binned += std::stoul(bin.at("events").get<std::string>());
  EXPECT_EQ(binned, events.size());
  // The first ten in time, by count and by -limit.
  for (const std::vector<std::string>& args : {std::vector<std::string>{"-event_list", "10"},
                                               std::vector<std::string>{"-limit", "10", "-event_list"}}) {
    const json first = er_print_json(args, threads());
    ASSERT_EQ(first.at("tables").at(0).at("rows").size(), 10u);
    EXPECT_EQ(first.at("summary").at("selected").get<size_t>(), events.size());
    for (size_t i = 0; i < 10; ++i)
      EXPECT_EQ(first.at("tables").at(0).at("rows").at(i).at("tstamp"), events.at(i).at("tstamp")) << i;
  }
  // On the command line "3x" would be taken for an experiment: a script gives it as the count.
  TempDir scratch;
  const fs::path script = scratch.path() / "count.er_print";
  std::ofstream(script) << "event_list 3x\n";
  const ProcessResult bad = run_process({er_print_path(), "-script", script.string(), threads().string()});
  EXPECT_NE(bad.err.find("'3x' is not a count of events"), std::string::npos) << bad.err;
}

TEST_F(ErPrintViews, CpuSelectPartitionsTheEvents) {
  const json all = er_print_json({"-metrics", "e.totalcpu:name", "-functions"}, threads());
  double sum = 0;
  for (int cpu = 0; cpu < 64; ++cpu)
    sum += total_of(er_print_json({"-metrics", "e.totalcpu:name", "-cpu_select", std::to_string(cpu), "-functions"}, threads()), "e.totalcpu");
  EXPECT_NEAR(sum, total_of(all, "e.totalcpu"), 1e-6);
  EXPECT_NEAR(total_of(er_print_json({"-metrics", "e.totalcpu:name", "-cpu_select", "0-63", "-functions"}, threads()), "e.totalcpu"),
              total_of(all, "e.totalcpu"), 1e-6);
}

TEST_F(ErPrintViews, SamplesCarryTheProcessFiguresAndSelectTheirEvents) {
  const json samples = er_print_json({"-samples"}, threads());
  const auto& rows = samples.at("rows");
  ASSERT_GE(rows.size(), 5u);  // about 0.6 s of wall time at 0.1 s, plus the end
  double user = 0, system = 0, sampled = 0;
  const json all = er_print_json({"-metrics", "e.totalcpu:name", "-functions"}, threads());
  for (const json& row : rows) {
    user += value(row, "user");
    system += value(row, "system");
    const json in_sample = er_print_json({"-metrics", "e.totalcpu:name", "-sample_select", row.at("sample").get<std::string>(), "-functions"}, threads());
    sampled += total_of(in_sample, "e.totalcpu");
  }
  // Every event falls in exactly one sample.
  EXPECT_NEAR(sampled, total_of(all, "e.totalcpu"), 1e-6);
  // The process's own CPU time (rusage user + system: the threads' CPU
  // clocks, which measured the work, count both) across all samples holds
  // what the threads measured of their work.
  double truth_sum = 0;
  for (const auto& [name, seconds] : threads_->truth.at("functions").items()) truth_sum += seconds.get<double>();
  EXPECT_GE(user + system, truth_sum * 0.95);
  EXPECT_NEAR(user + system, truth_sum, tolerance(truth_sum) + 0.05);
  EXPECT_EQ(rows.back().at("name"), "End");
  // Periodic samples in between; together the samples cover the run from
  // the first point to the last.
  double duration = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i + 1 < rows.size()) EXPECT_EQ(rows[i].at("name"), "Periodic");
    EXPECT_GT(value(rows[i], "duration"), 0);
    duration += value(rows[i], "duration");
  }
  EXPECT_NEAR(duration, std::stod(rows.back().at("end").get<std::string>()), 0.002);
  const json overview = er_print_json({"-overview"}, threads());
  EXPECT_NEAR(overview.at("records").at(0).at("user").get<double>(), user, 1e-3);
  EXPECT_EQ(overview.at("records").at(0).at("samples").get<size_t>(), rows.size());
}

TEST_F(ErPrintViews, FiltersSelectByThreadTimeAndFunction) {
  const json by_thread = er_print_json({"-metrics", "e.totalcpu:name", "-thread_select", "2", "-functions"}, threads());
  const json by_expression = er_print_json({"-metrics", "e.totalcpu:name", "-filters", "thread in 2", "-functions"}, threads());
  EXPECT_NEAR(total_of(by_expression, "e.totalcpu"), total_of(by_thread, "e.totalcpu"), 1e-6);
  const json all = er_print_json({"-metrics", "e.totalcpu:i.totalcpu:name", "-functions"}, threads());
  const json whole_run = er_print_json({"-metrics", "e.totalcpu:name", "-filters", "time in 0-1000", "-functions"}, threads());
  EXPECT_NEAR(total_of(whole_run, "e.totalcpu"), total_of(all, "e.totalcpu"), 1e-6);
  const json none = er_print_json({"-metrics", "e.totalcpu:name", "-filters", "time >= 1000", "-functions"}, threads());
  EXPECT_EQ(total_of(none, "e.totalcpu"), 0);
  const json on_stack = er_print_json({"-metrics", "e.totalcpu:name", "-filters", "function == thread_b", "-functions"}, threads());
  EXPECT_NEAR(total_of(on_stack, "e.totalcpu"), rows_by_name(all).at("thread_b").at("i.totalcpu").get<double>(), 1e-6);
  // Views other than -functions honour the filter too.
  const json tree = er_print_json({"-metrics", "i.totalcpu:name", "-filters", "function == thread_b", "-calltree"}, threads());
  for (const json& row : tree.at("rows"))
    EXPECT_TRUE(row.at("name") != "spin_a" && row.at("name") != "spin_main") << row.dump();
  const ProcessResult bad = run_process({er_print_path(), "-filters", "colour == red", "-functions", threads().string()});
  EXPECT_NE(bad.err.find("unknown filter key 'colour'"), std::string::npos) << bad.err;
}

// A function filter names functions as -source and -fsingle take them:
// without namespace or parameters too (lumen::test::descend(int, double) is
// "descend"). One that names no function fails, saying so; a selection of
// no event says it leaves none.
TEST_F(ErPrintViews, FiltersNameFunctionsAsTheViewsDoAndSayWhenNothingIsLeft) {
  ASSERT_EQ(recursive_->run.exit_code, 0) << recursive_->run.err;
  const json& truth = recursive_->truth.at("functions");
  const double descend = truth.at("lumen::test::descend(int, double)").get<double>() +
                         truth.at("lumen::test::bottom_work(double)").get<double>();
  for (const char* name : {"descend", "lumen::test::descend", "lumen::test::descend(int, double)"}) {
    const json view = er_print_json({"-metrics", "e.totalcpu:name", "-filters", std::string("function == ") + name,
                                     "-functions"}, recursive_->experiment);
    EXPECT_NEAR(total_of(view, "e.totalcpu"), descend, sampling_tolerance(descend, 0.01)) << name;
    const json fsingle = er_print_json({"-fsingle", name}, recursive_->experiment);
    EXPECT_EQ(fsingle.at("records").size(), 1u) << name;
  }
  const json gprofngs = er_print_json({"-metrics", "e.totalcpu:name", "-filters", R"((FNAME("bottom_work") SOME IN STACK))",
                                       "-functions"}, recursive_->experiment);
  const double bottom = truth.at("lumen::test::bottom_work(double)").get<double>();
  EXPECT_NEAR(total_of(gprofngs, "e.totalcpu"), bottom, sampling_tolerance(bottom, 0.01));

  const ProcessResult unknown = run_process({er_print_path(), "-filters", "function == descent", "-functions",
                                             recursive_->experiment.string()});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.err.find("no function named 'descent'"), std::string::npos) << unknown.err;
  const ProcessResult later = run_process({er_print_path(), "-filters", "time >= 1000", "-functions",
                                           recursive_->experiment.string()});
  EXPECT_EQ(later.exit_code, 0) << later.err;
  EXPECT_NE(later.err.find("the selection (filters 'time >= 1000') leaves none of the"), std::string::npos)
      << later.err;
}

TEST_F(ErPrintViews, InlinedFunctionsBecomeTheirOwnFrames) {
  // burn_cpu (truth.h, static inline) is inlined into each spin function.
  const auto plain = rows_by_name(er_print_json({"-metrics", "e.totalcpu:i.totalcpu:name", "-functions"}, threads()));
  EXPECT_EQ(plain.count("burn_cpu"), 0u);
  const auto inlined = rows_by_name(er_print_json({"-inline", "on", "-metrics", "e.totalcpu:i.totalcpu:name", "-functions"}, threads()));
  ASSERT_EQ(inlined.count("burn_cpu"), 1u);
  EXPECT_NEAR(inlined.at("spin_b").at("i.totalcpu").get<double>(), plain.at("spin_b").at("i.totalcpu").get<double>(), 1e-6);
  EXPECT_NEAR(inlined.at("<Total>").at("e.totalcpu").get<double>(), plain.at("<Total>").at("e.totalcpu").get<double>(), 1e-6);
  const json cs = er_print_json({"-inline", "on", "-metrics", "a.totalcpu:name", "-csingle", "burn_cpu"}, threads());
  std::map<std::string, double> callers;
  for (const json& c : cs.at("rows").at(0).at("callers")) callers[c.at("name")] = value(c, "a.totalcpu");
  for (const char* f : {"spin_main", "spin_a", "spin_b", "spin_c"}) {
    ASSERT_EQ(callers.count(f), 1u) << f;
    EXPECT_NEAR(callers.at(f), truth(f), tolerance(truth(f))) << f;  // the spin function's time is its loop's
  }
  EXPECT_EQ(callers.size(), 4u);
}

TEST_F(ErPrintViews, ObjectListAndStatistics) {
  const json list = er_print_json({"-object_list"}, threads());
  std::map<std::string, std::string> data;
  for (const json& row : list.at("rows")) data[row.at("name")] = row.at("data");
  EXPECT_EQ(data.at("threads_target"), "yes");
  EXPECT_TRUE(data.count("libc.so.6"));
  const json stats = er_print_json({"-statistics"}, threads());
  const json& e = stats.at("records").at(0);
  EXPECT_EQ(e.at("threads").get<int>(), 4);
  const json& total = stats.at("records").back();
  EXPECT_EQ(total.at("name"), "<Total>");
  EXPECT_EQ(total.at("events").get<double>(), e.at("events").get<double>());
  // Clock events: one per tick, 10 ms each (overruns credit more per event),
  // and at most one more per thread at its end, with the CPU time since its
  // last tick (less than a tick: clock_collector.cpp's record_tail).
  const double seconds = total_of(er_print_json({"-metrics", "e.totalcpu:name", "-functions"}, threads()), "e.totalcpu");
  EXPECT_LE((e.at("events").get<double>() - e.at("threads").get<double>()) * 0.01, seconds + 1e-6);
}

TEST_F(ErPrintViews, TextTitlesAreNotCut) {
  const ProcessResult r = run_process({er_print_path(), "-samples", threads().string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Involuntary Switches"), std::string::npos) << r.out;
  const ProcessResult tree = run_process({er_print_path(), "-metrics", "i.totalcpu:name", "-calltree", threads().string()});
  EXPECT_NE(tree.out.find("    spin_b"), std::string::npos) << tree.out;  // indented by depth
}

}  // namespace
}  // namespace lumen::test

namespace lumen::test {
namespace {

TEST(ErPrintSeveralExperiments, AggregatedAndComparedSideBySide) {
  TempDir dir_a, dir_b;
  const Collection a = collect(dir_a, {"-p", "on"}, "threads_target", {"0.3"});
  const Collection b = collect(dir_b, {"-p", "on"}, "threads_target", {"0.6"});
  ASSERT_EQ(a.run.exit_code, 0) << a.run.err;
  ASSERT_EQ(b.run.exit_code, 0) << b.run.err;
  const auto own_a = rows_by_name(er_print_json({"-metrics", "e.totalcpu:name", "-functions"}, a.experiment));
  const auto own_b = rows_by_name(er_print_json({"-metrics", "e.totalcpu:name", "-functions"}, b.experiment));
  auto both = [&](std::vector<std::string> args) {
    std::vector<std::string> argv{(bin_dir() / "er_print").string(), "--format=json", "-metrics", "e.totalcpu:name"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back(a.experiment.string());
    argv.push_back(b.experiment.string());
    const ProcessResult r = run_process(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  auto own = [](const std::map<std::string, nlohmann::json>& rows, const std::string& name) {
    return rows.count(name) ? rows.at(name).at("e.totalcpu").get<double>() : 0.0;
  };
  // Aggregated: the sum of both.
  const auto sum = rows_by_name(both({"-functions"}));
  EXPECT_NEAR(sum.at("<Total>").at("e.totalcpu").get<double>(), own(own_a, "<Total>") + own(own_b, "<Total>"), 1e-6);
  EXPECT_NEAR(sum.at("spin_b").at("e.totalcpu").get<double>(), own(own_a, "spin_b") + own(own_b, "spin_b"), 1e-6);
  // Side by side, as differences, as ratios.
  const auto on = rows_by_name(both({"-compare", "on", "-functions"}));
  const auto delta = rows_by_name(both({"-compare", "delta", "-functions"}));
  const auto ratio = rows_by_name(both({"-compare", "ratio", "-functions"}));
  for (const char* f : {"<Total>", "spin_main", "spin_a", "spin_b", "spin_c"}) {
    EXPECT_NEAR(on.at(f).at("1:e.totalcpu").get<double>(), own(own_a, f), 1e-6) << f;
    EXPECT_NEAR(on.at(f).at("2:e.totalcpu").get<double>(), own(own_b, f), 1e-6) << f;
    EXPECT_NEAR(delta.at(f).at("1:e.totalcpu").get<double>(), own(own_a, f), 1e-6) << f;
    EXPECT_NEAR(delta.at(f).at("2:e.totalcpu").get<double>(), own(own_b, f) - own(own_a, f), 1e-6) << f;
    if (own(own_a, f) > 0) EXPECT_NEAR(ratio.at(f).at("2:e.totalcpu").get<double>(), own(own_b, f) / own(own_a, f), 1e-6) << f;
  }
  // The second run did twice the work: spin_b's ratio is about 2, within
  // what sampling both runs at 10 ms allows (relative errors add up).
  const double truth_a = a.truth.at("functions").at("spin_b").get<double>();
  const double truth_b = b.truth.at("functions").at("spin_b").get<double>();
  const double truth_ratio = truth_b / truth_a;
  const double relative = sampling_tolerance(truth_a, 0.01) / truth_a + sampling_tolerance(truth_b, 0.01) / truth_b;
  EXPECT_NEAR(ratio.at("spin_b").at("2:e.totalcpu").get<double>(), truth_ratio, truth_ratio * relative);
}

}  // namespace
}  // namespace lumen::test

namespace lumen::test {
namespace {

TEST(ErPrintCpuSelect, EventsWithoutACpuAreNotPretendedToHaveOne) {
  TempDir dir;
  // Heap tracing records no CPU with its events.
  const Collection heap = collect(dir, {"-p", "off", "-H", "on"}, "threads_target", {"0.1"});
  ASSERT_EQ(heap.run.exit_code, 0) << heap.run.err;
  const ProcessResult r = run_process({(bin_dir() / "er_print").string(), "-cpu_select", "0", "-functions", heap.experiment.string()});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("record no CPU, so -cpu_select cannot choose among them"), std::string::npos) << r.err;
  EXPECT_EQ(run_process({(bin_dir() / "er_print").string(), "-cpu_select", "all", "-functions", heap.experiment.string()}).exit_code, 0);
}

}  // namespace
}  // namespace lumen::test

namespace lumen::test {
namespace {

// gfortran names a module procedure __MODULE_MOD_NAME: er_print shows it as
// MODULE::NAME (gdb's form), and every command taking a function takes the
// name shown, the procedure's own name, or the symbol.
TEST(FortranNames, ModuleProceduresAreShownAndTakenByTheirNames) {
  if (!std::filesystem::exists(target_dir() / "fortran_module_target")) GTEST_SKIP() << "built without gfortran";
  TempDir dir;
  const Collection c = collect(dir, {}, "fortran_module_target");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const double truth = c.truth.at("functions").at("kernels::smooth").get<double>();
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.totalcpu:i.totalcpu:name", "-functions"}, c.experiment));
  ASSERT_EQ(rows.count("kernels::smooth"), 1u);
  EXPECT_EQ(rows.count("__kernels_MOD_smooth"), 0u);
  EXPECT_NEAR(rows.at("kernels::smooth").at("i.totalcpu").get<double>(), truth, sampling_tolerance(truth, 0.01));
  for (const char* name : {"smooth", "kernels::smooth", "__kernels_MOD_smooth"}) {
    const json single = er_print_json({"-fsingle", name}, c.experiment);
    ASSERT_EQ(single.at("records").size(), 1u) << name;
    EXPECT_EQ(single.at("records").at(0).at("name"), "kernels::smooth");
    EXPECT_EQ(single.at("records").at(0).at("mangled_name"), "__kernels_MOD_smooth");
    // Its lines and instructions hold its samples.
    for (const auto& [view, kind] : {std::pair{"-source", "line"}, std::pair{"-disasm", "instruction"}}) {
      const json annotated = er_print_json({"-metrics", "e.totalcpu:name", view, name}, c.experiment);
      double sum = 0;
      for (const json& row : annotated.at("rows"))
        if (row.at("kind") == kind) sum += value(row, "e.totalcpu");
      EXPECT_NEAR(sum, rows.at("kernels::smooth").at("e.totalcpu").get<double>(), 1e-6) << view << " " << name;
    }
  }
  const auto mangled = rows_by_name(er_print_json({"-name", "mangled", "-functions"}, c.experiment));
  EXPECT_EQ(mangled.count("__kernels_MOD_smooth"), 1u);
}

}  // namespace
}  // namespace lumen::test
