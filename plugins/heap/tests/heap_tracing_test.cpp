// Heap tracing end to end: the heap targets count every allocation they make
// per function (heap_truth.h), and er_print's heap metrics and views read
// from the real collector's experiment must equal those counts. Heap tracing
// is exact, so every comparison is an equality.
#include <gtest/gtest.h>
#include <lumen/record_format.h>

#include <filesystem>
#include <cstring>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "heap_record.h"
#include "lumen_commands.h"
#include "thread_count_views.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string heap_target(const std::string& name) { return std::string(HEAP_TEST_TARGET_DIR) + "/" + name; }

const char* const kHeapMetrics = "e.heapalloccnt:e.heapallocbytes:e.heapleakcnt:e.heapleakbytes:"
                                 "i.heapalloccnt:i.heapallocbytes:i.heapleakcnt:i.heapleakbytes:name";

std::map<std::string, json> heap_rows(const fs::path& experiment) {
  return rows_by_name(er_print_json({"-metrics", kHeapMetrics, "-functions"}, experiment));
}

double value(const std::map<std::string, json>& rows, const std::string& name, const std::string& key) {
  const auto row = rows.find(name);
  return row == rows.end() ? 0.0 : row->second.at(key).get<double>();
}

// The truth's four figures of one function against its row, in one flavor
// ("e." or "i.").
void expect_function_equals_truth(const std::map<std::string, json>& rows, const std::string& function,
                                  const json& truth, const std::string& flavor) {
  SCOPED_TRACE(function + " (" + flavor + ")");
  ASSERT_TRUE(rows.count(function)) << "no row for " << function;
  EXPECT_EQ(value(rows, function, flavor + "heapalloccnt"), truth.at("allocations").get<double>());
  EXPECT_EQ(value(rows, function, flavor + "heapallocbytes"), truth.at("bytes").get<double>());
  EXPECT_EQ(value(rows, function, flavor + "heapleakcnt"), truth.at("leaks").get<double>());
  EXPECT_EQ(value(rows, function, flavor + "heapleakbytes"), truth.at("leaked_bytes").get<double>());
}

struct TruthTotals {
  double allocations = 0, bytes = 0, leaks = 0, leaked_bytes = 0;
};
TruthTotals totals_of(const json& truth) {
  TruthTotals t;
  for (const auto& [name, f] : truth.at("functions").items()) {
    t.allocations += f.at("allocations").get<double>();
    t.bytes += f.at("bytes").get<double>();
    t.leaks += f.at("leaks").get<double>();
    t.leaked_bytes += f.at("leaked_bytes").get<double>();
  }
  return t;
}

void expect_totals_equal_truth(const std::map<std::string, json>& rows, const TruthTotals& t) {
  EXPECT_EQ(value(rows, "<Total>", "i.heapalloccnt"), t.allocations);
  EXPECT_EQ(value(rows, "<Total>", "i.heapallocbytes"), t.bytes);
  EXPECT_EQ(value(rows, "<Total>", "i.heapleakcnt"), t.leaks);
  EXPECT_EQ(value(rows, "<Total>", "i.heapleakbytes"), t.leaked_bytes);
}

// The functions of a view row's stack, leaf first.
std::vector<std::string> stack_functions(const json& row) {
  std::vector<std::string> names;
  if (row.contains("stack"))
    for (const json& frame : row.at("stack")) names.push_back(frame.at("function").get<std::string>());
  return names;
}

TruthTotals operator+(TruthTotals a, const TruthTotals& b) {
  a.allocations += b.allocations;
  a.bytes += b.bytes;
  a.leaks += b.leaks;
  a.leaked_bytes += b.leaked_bytes;
  return a;
}

// The allocations made before collection started (collector/before_start.h):
// the program's libraries' initializers, among them libstdc++'s emergency
// exception pool, which every collected process has (the runtime is C++).
// Their stack is their call site alone, under <Truncated-stack>, which no
// other stack of these targets reaches (none is 256 frames deep).
TruthTotals before_start(const fs::path& experiment) {
  TruthTotals t;
  const auto rows = heap_rows(experiment);
  t.allocations = value(rows, "<Truncated-stack>", "i.heapalloccnt");
  t.bytes = value(rows, "<Truncated-stack>", "i.heapallocbytes");
  t.leaks = value(rows, "<Truncated-stack>", "i.heapleakcnt");
  t.leaked_bytes = value(rows, "<Truncated-stack>", "i.heapleakbytes");
  return t;
}

TruthTotals all_of(const Collection& c) { return totals_of(c.truth) + before_start(c.experiment); }

const json* table_titled(const json& view, const std::string& title) {
  for (const json& table : view.at("tables"))
    if (table.at("title") == title) return &table;
  return nullptr;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// What a program prints and returns when run without the collector (its
// truth goes to a file of its own, so it behaves exactly as collected).
ProcessResult run_alone(const TempDir& dir, const std::string& target) {
  return run_process({heap_target(target)}, {{"LUMEN_TEST_TRUTH", (dir.path() / "alone.json").string()}});
}

// ---- every allocator, the realloc chain, the leaks, failing calls ----

class HeapAllocators : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    run_ = new Collection(collect(*dir_, {"-H", "on"}, heap_target("heap_allocators_target")));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete dir_;
  }
  void SetUp() override {
    ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
    ASSERT_TRUE(run_->truth.contains("functions")) << "the target wrote no truth";
  }
  static TempDir* dir_;
  static Collection* run_;
};
TempDir* HeapAllocators::dir_ = nullptr;
Collection* HeapAllocators::run_ = nullptr;

TEST_F(HeapAllocators, TargetOutputAndExitStatusAreUnchanged) {
  TempDir alone_dir;
  const ProcessResult alone = run_alone(alone_dir, "heap_allocators_target");
  EXPECT_EQ(alone.exit_code, 0);
  EXPECT_EQ(run_->run.out, alone.out);
  // Alignment, errno, malloc_usable_size and results as without a collector.
  EXPECT_NE(run_->run.out.find("calloc zeroed 1\n"), std::string::npos) << run_->run.out;
  EXPECT_NE(run_->run.out.find("memalign aligned 1\n"), std::string::npos);
  EXPECT_NE(run_->run.out.find("posix_memalign aligned 1 bad alignment 22 result untouched 1\n"), std::string::npos);
  EXPECT_NE(run_->run.out.find("aligned_alloc aligned 1\n"), std::string::npos);
  EXPECT_NE(run_->run.out.find("valloc aligned 1\n"), std::string::npos);
  EXPECT_NE(run_->run.out.find("pvalloc aligned 1 usable at least 1\n"), std::string::npos);
  EXPECT_NE(run_->run.out.find("mmap refused 1 errno EBADF\n"), std::string::npos);
  EXPECT_NE(run_->run.out.find("malloc huge null 1 ENOMEM 1; calloc overflow null 1 ENOMEM 1; realloc huge null 1 "
                               "ENOMEM 1; free keeps errno 1\n"),
            std::string::npos);
  EXPECT_NE(run_->run.out.find("usable size at least asked 1\n"), std::string::npos);
  EXPECT_NE(run_->run.out.find("early block intact 1\n"), std::string::npos);
}

TEST_F(HeapAllocators, EveryFunctionEqualsItsOwnCounts) {
  const auto rows = heap_rows(run_->experiment);
  for (const auto& [function, truth] : run_->truth.at("functions").items()) {
    // Each calls the allocators directly and nothing else that allocates;
    // the allocator it calls is the leaf, holding the counts exclusively.
    expect_function_equals_truth(rows, function, truth, "i.");
    EXPECT_EQ(value(rows, function, "e.heapalloccnt"), 0.0) << function;
    EXPECT_EQ(value(rows, function, "e.heapleakcnt"), 0.0) << function;
  }
  // main calls them all; what came before collection started is under its call site alone.
  const TruthTotals t = totals_of(run_->truth);
  EXPECT_EQ(value(rows, "main", "i.heapalloccnt"), t.allocations);
  EXPECT_EQ(value(rows, "main", "i.heapleakbytes"), t.leaked_bytes);
  EXPECT_EQ(value(rows, "main", "e.heapalloccnt"), 0.0);
  expect_totals_equal_truth(rows, all_of(*run_));
}

// The early library's constructor ran before the runtime's (the dynamic
// linker runs the program's libraries' first), and so did libstdc++'s,
// which allocates its emergency exception pool: both blocks are counted,
// at the function that made each (its call site: allocate_early's malloc
// of 4321 bytes); main's free of the early block pairs with it, and the
// pool is freed at exit (libstdc++'s __freeres, as valgrind and heaptrack
// ask for it): neither is a leak.
TEST_F(HeapAllocators, AllocationsBeforeCollectionStartAreCounted) {
  const TruthTotals before = before_start(run_->experiment);
  EXPECT_EQ(before.allocations, 2.0);
  EXPECT_EQ(before.leaks, 0.0) << "the pool is freed at exit";
  EXPECT_GT(before.bytes, 4321.0) << "the early library's block and the pool";
  const auto rows = heap_rows(run_->experiment);
  ASSERT_TRUE(rows.count("allocate_early")) << "the early block is its constructor's";
  EXPECT_EQ(value(rows, "allocate_early", "i.heapalloccnt"), 1.0);
  EXPECT_EQ(value(rows, "allocate_early", "i.heapallocbytes"), 4321.0);
  const json heap = er_print_json({"-heap"}, run_->experiment);
  EXPECT_EQ(heap.at("summary").at("unmatched_frees").get<double>(), 0.0);
  EXPECT_EQ(heap.at("summary").at("frees").get<double>(),
            heap.at("summary").at("allocations").get<double>() - heap.at("summary").at("leaks").get<double>());
}

// As Oracle and gprofng show them: the allocation function is the leaf of
// its event's stack, a row of its own holding the counts exclusively; the
// interposer never shows.
TEST_F(HeapAllocators, AllocatorIsTheLeafAndNoInterposerFrameAppears) {
  const auto view = er_print_json({"-metrics", "e.heapalloccnt:e.heapleakcnt:name", "-functions"}, run_->experiment);
  const std::set<std::string> allocators = {"malloc",         "calloc",        "realloc", "memalign", "posix_memalign",
                                            "aligned_alloc", "valloc",        "pvalloc", "mmap",     "mremap"};
  double by_allocators = 0, total = 0, unknown = 0;
  for (const json& row : view.at("rows")) {
    const std::string name = row.at("name");
    EXPECT_EQ(name.find("lumen"), std::string::npos) << name;
    if (row.contains("load_object")) {
      EXPECT_NE(row.at("load_object"), "collector.so") << name;
    }
    const double count = row.at("values").at("e.heapalloccnt").get<double>();
    if (name == "<Total>") total = count;
    else if (allocators.count(name)) by_allocators += count;
    else if (name == "<Unknown>") unknown = count;
    else EXPECT_EQ(count, 0.0) << name << " is no allocation function";
  }
  EXPECT_EQ(by_allocators, totals_of(run_->truth).allocations + before_start(run_->experiment).allocations)
      << "the allocations before collection started too are their allocators'";
  EXPECT_EQ(unknown, 0.0) << "every allocation has a stack, if only its call site";
  EXPECT_EQ(total, by_allocators);
  const auto rows = heap_rows(run_->experiment);
  const json& functions = run_->truth.at("functions");
  EXPECT_EQ(value(rows, "calloc", "e.heapalloccnt"), functions.at("use_calloc").at("allocations").get<double>());
  EXPECT_EQ(value(rows, "calloc", "e.heapallocbytes"), functions.at("use_calloc").at("bytes").get<double>());
}

TEST_F(HeapAllocators, LeaksViewShowsEachLeakingStackLargestFirst) {
  const json leaks = er_print_json({"-leaks"}, run_->experiment);
  const TruthTotals t = all_of(*run_);
  EXPECT_EQ(leaks.at("summary").at("leaks").get<double>(), t.leaks);
  EXPECT_EQ(leaks.at("summary").at("bytes").get<double>(), t.leaked_bytes);
  const json& rows = leaks.at("tables").at(0).at("rows");
  ASSERT_FALSE(rows.empty());
  // leak_some's 1999993 bytes lead; its stack is leak_some called by main.
  const std::vector<std::string> top = stack_functions(rows.at(0));
  ASSERT_GE(top.size(), 2u) << rows.at(0).dump();
  EXPECT_EQ(top[0], "leak_some");
  EXPECT_EQ(top[1], "main");
  EXPECT_EQ(rows.at(0).at("values").at("bytes").get<double>(), 1999993.0);
  // One row per leaking stack, each named by its leaf, summing to the truth.
  double leaked = 0, count = 0, previous = 1e300;
  std::map<std::string, double> bytes_by_leaf;
  for (const json& row : rows) {
    const double bytes = row.at("values").at("bytes").get<double>();
    EXPECT_LE(bytes, previous) << "not largest first";
    previous = bytes;
    leaked += bytes;
    count += row.at("values").at("count").get<double>();
    if (stack_functions(row).empty()) continue;  // before collection started
    EXPECT_EQ(stack_functions(row)[0], row.at("name").get<std::string>());
    bytes_by_leaf[row.at("name")] += bytes;
  }
  EXPECT_EQ(leaked, t.leaked_bytes);
  EXPECT_EQ(count, t.leaks);
  for (const auto& [function, truth] : run_->truth.at("functions").items())
    EXPECT_EQ(bytes_by_leaf[function], truth.at("leaked_bytes").get<double>()) << function;
}

TEST_F(HeapAllocators, AllocsViewShowsEveryAllocatingStack) {
  const json allocs = er_print_json({"-allocs"}, run_->experiment);
  const TruthTotals t = all_of(*run_);
  EXPECT_EQ(allocs.at("summary").at("allocations").get<double>(), t.allocations);
  EXPECT_EQ(allocs.at("summary").at("bytes").get<double>(), t.bytes);
  std::map<std::string, double> count_by_leaf, bytes_by_leaf;
  for (const json& row : allocs.at("tables").at(0).at("rows")) {
    const auto frames = stack_functions(row);
    if (frames.size() == 1) continue;  // before collection started: its call site alone
    ASSERT_GE(frames.size(), 2u) << row.dump();
    EXPECT_EQ(frames[1], "main") << row.dump();
    count_by_leaf[frames[0]] += row.at("values").at("count").get<double>();
    bytes_by_leaf[frames[0]] += row.at("values").at("bytes").get<double>();
  }
  for (const auto& [function, truth] : run_->truth.at("functions").items()) {
    EXPECT_EQ(count_by_leaf[function], truth.at("allocations").get<double>()) << function;
    EXPECT_EQ(bytes_by_leaf[function], truth.at("bytes").get<double>()) << function;
  }
  // -limit cuts the rows, not the totals.
  const json limited = er_print_json({"-limit", "2", "-allocs"}, run_->experiment);
  EXPECT_EQ(limited.at("tables").at(0).at("rows").size(), 2u);
  EXPECT_EQ(limited.at("summary").at("allocations").get<double>(), t.allocations);
}

// The target runs its functions one after another on one thread, so bytes in
// use peak in check_usable_size, the last allocation: its 200-byte block on
// top of every leak made before it and the blocks from before collection
// started (main frees the early library's after).
TEST_F(HeapAllocators, HeapViewShowsTotalsSizesAndThePeakWithItsStacks) {
  for (const char* command : {"-heap", "-heapstat"}) {
    SCOPED_TRACE(command);
    const json heap = er_print_json({command}, run_->experiment);
    const json& summary = heap.at("summary");
    const TruthTotals before = before_start(run_->experiment);
    const TruthTotals t = totals_of(run_->truth) + before;
    const json& functions = run_->truth.at("functions");
    EXPECT_EQ(summary.at("allocations").get<double>(), t.allocations);
    EXPECT_EQ(summary.at("bytes_allocated").get<double>(), t.bytes);
    EXPECT_EQ(summary.at("leaks").get<double>(), t.leaks);
    EXPECT_EQ(summary.at("bytes_leaked").get<double>(), t.leaked_bytes);
    const double peak_expected = (t.leaked_bytes - before.leaked_bytes) + before.bytes +
                                 functions.at("check_usable_size").at("bytes").get<double>();
    EXPECT_EQ(summary.at("peak_bytes").get<double>(), peak_expected);
    EXPECT_EQ(summary.at("peak_allocations").get<double>(), t.leaks - before.leaks + before.allocations + 1);
    EXPECT_GT(summary.at("peak_time").get<double>(), 0.0);

    const json* sizes = table_titled(heap, "Allocation sizes (bytes)");
    ASSERT_NE(sizes, nullptr);
    double histogram_count = 0, histogram_bytes = 0;
    bool found_largest = false;
    for (const json& row : sizes->at("rows")) {
      histogram_count += row.at("values").at("count").get<double>();
      histogram_bytes += row.at("values").at("bytes").get<double>();
      if (row.at("name") == "1048576 - 2097151") {
        found_largest = true;
        EXPECT_EQ(row.at("values").at("count").get<double>(), 1.0);  // leak_some's block alone
      }
    }
    EXPECT_TRUE(found_largest) << sizes->dump();
    EXPECT_EQ(histogram_count, t.allocations);
    EXPECT_EQ(histogram_bytes, t.bytes);

    const json* by_function = table_titled(heap, "Allocations by function");
    ASSERT_NE(by_function, nullptr);
    const auto allocators = rows_by_name(*by_function);
    EXPECT_EQ(allocators.at("calloc").at("count").get<double>(), functions.at("use_calloc").at("allocations").get<double>());
    EXPECT_EQ(allocators.at("realloc").at("bytes").get<double>(), functions.at("realloc_chain").at("bytes").get<double>());
    EXPECT_EQ(allocators.at("mmap").at("bytes").get<double>(), functions.at("use_mmap").at("bytes").get<double>());
    EXPECT_EQ(allocators.at("pvalloc").at("bytes").get<double>(), 9999.0);

    const json* at_peak = table_titled(heap, "In use at the peak, by call stack");
    ASSERT_NE(at_peak, nullptr);
    const json& rows = at_peak->at("rows");
    ASSERT_FALSE(rows.empty());
    const std::vector<std::string> top = stack_functions(rows.at(0));
    ASSERT_GE(top.size(), 2u) << rows.at(0).dump();
    EXPECT_EQ(top[0], "leak_some");
    EXPECT_EQ(top[1], "main");
    double held = 0;
    std::set<std::string> leaves;
    for (const json& row : rows) {
      held += row.at("values").at("bytes").get<double>();
      if (!stack_functions(row).empty()) leaves.insert(stack_functions(row).at(0));
    }
    EXPECT_EQ(held, peak_expected);
    EXPECT_TRUE(leaves.count("check_usable_size"));
    EXPECT_FALSE(leaves.count("use_calloc")) << "its blocks were all freed before the peak";
  }
}

TEST_F(HeapAllocators, TextViewsShowTheStacksUnderTheirRows) {
  for (const char* command : {"-leaks", "-allocs", "-heap"}) {
    const ProcessResult r = run_process({(bin_dir() / "er_print").string(), command, run_->experiment.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("  leak_some\n"), std::string::npos) << command << "\n" << r.out;
    EXPECT_NE(r.out.find("leak_some (heap_allocators_target)\n"), std::string::npos) << command << "\n" << r.out;
    EXPECT_NE(r.out.find("main (heap_allocators_target)\n"), std::string::npos) << command << "\n" << r.out;
  }
}

// ---- threads in lock-step: the peak is exact whatever the time marks ----

// Bytes in use over time step through the levels the program held, each
// for 200 ms (heap_phases_target.c), above what the process held before its
// first block: runs of one value over 100 ms or more, in order, each equal
// to the level the program counted, exactly. No bin's highest is below its
// end, and the highest of all is -heap's peak.
TEST(HeapInUse, BytesInUseOverTimeStepThroughWhatTheProgramHeld) {
  TempDir dir;
  const Collection c = collect(dir, {"-H", "on"}, heap_target("heap_phases_target"), {});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  ASSERT_EQ(c.run.out, "phases_target done: 12345 bytes kept\n");
  const json& truth = c.truth.at("functions");
  const json view = er_print_json({"-heap_in_use"}, c.experiment);
  const json* bins = table_titled(view, "Bytes in use over time, since collection start");
  ASSERT_NE(bins, nullptr);
  struct Run {
    double value;
    double milliseconds;
  };
  std::vector<Run> runs;
  double highest = 0;
  for (const json& row : bins->at("rows")) {
    const json& v = row.at("values");
    const double at_end = v.at("at_end").get<double>();
    EXPECT_GE(v.at("highest").get<double>(), at_end) << row.dump();
    highest = std::max(highest, v.at("highest").get<double>());
    const double milliseconds = (v.at("end").get<double>() - v.at("start").get<double>()) * 1e3;
    if (!runs.empty() && runs.back().value == at_end) runs.back().milliseconds += milliseconds;
    else runs.push_back({at_end, milliseconds});
  }
  std::vector<double> held;  // the values held 100 ms or more, in order
  for (const Run& run : runs)
    if (run.milliseconds >= 100) held.push_back(run.value);
  ASSERT_EQ(held.size(), 5u) << bins->dump();
  for (int level = 0; level < 5; ++level)
    EXPECT_EQ(held[level] - held[0], truth.at("level_" + std::to_string(level)).at("bytes").get<double>()) << level;
  EXPECT_EQ(highest, er_print_json({"-heap"}, c.experiment).at("summary").at("peak_bytes").get<double>());
}

// The target knows its true peak by construction (heap_peak_target.c): the
// blocks its rounds hold at the peak are the last round's, whereas a replay
// that took one thread's events ahead of another's (their time marks are
// 1 ms apart at best, and a round takes microseconds) would hold blocks of
// several rounds and report a higher peak.
TEST(HeapPeak, ThreadsAllocatingTogetherHaveTheirExactPeak) {
  TempDir dir;
  const Collection c = collect(dir, {"-H", "on"}, heap_target("heap_peak_target"), {"4", "64"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, "peak_target done: 4 threads x 64 rounds\n");
  const json& truth = c.truth.at("functions");
  const json heap = er_print_json({"-heap"}, c.experiment);
  const json& summary = heap.at("summary");
  EXPECT_EQ(truth.at("round_allocate").at("allocations").get<double>(), 4 * 64.0);
  const json* at_peak = table_titled(heap, "In use at the peak, by call stack");
  ASSERT_NE(at_peak, nullptr);
  double rounds_count = 0, rounds_bytes = 0, count = 0, bytes = 0;
  for (const json& row : at_peak->at("rows")) {
    const double n = row.at("values").at("count").get<double>(), b = row.at("values").at("bytes").get<double>();
    count += n;
    bytes += b;
    const auto frames = stack_functions(row);
    if (!frames.empty() && frames[0] == "round_allocate") {
      rounds_count += n;
      rounds_bytes += b;
    }
  }
  EXPECT_EQ(rounds_count, truth.at("at_peak").at("allocations").get<double>()) << at_peak->dump();
  EXPECT_EQ(rounds_bytes, truth.at("at_peak").at("bytes").get<double>()) << at_peak->dump();
  // What else was live (the program's own start-up blocks, the libraries'
  // from before collection started) stays the same through the rounds: the peak is theirs and the last round's, exactly.
  EXPECT_EQ(summary.at("peak_bytes").get<double>(), bytes);
  EXPECT_EQ(summary.at("peak_allocations").get<double>(), count);
  EXPECT_LT(bytes - rounds_bytes, 300000.0) << "no block of another round";
}

// ---- a pool of threads allocating at once, freeing each other's blocks ----

TEST(HeapThreads, ConcurrentAllocationsAndCrossThreadFreesAreExact) {
  TempDir dir;
  const Collection c = collect(dir, {"-H", "on"}, heap_target("heap_threads_target"), {"4", "20000"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, "threads_target done: 4 threads x 20000 blocks\n");
  const auto rows = heap_rows(c.experiment);
  for (const char* function : {"pool_allocate", "pool_churn"})
    expect_function_equals_truth(rows, function, c.truth.at("functions").at(function), "i.");
  EXPECT_EQ(value(rows, "pool_release", "i.heapalloccnt"), 0.0);
  // Leaks: the blocks pool_release kept, nothing else the workers made.
  EXPECT_EQ(value(rows, "worker", "i.heapleakcnt"), 4 * 200.0);
  EXPECT_EQ(value(rows, "worker", "i.heapalloccnt"), 4 * 2 * 20000.0);
  const json leaks = er_print_json({"-leaks"}, c.experiment);
  std::map<std::string, double> by_leaf;
  for (const json& row : leaks.at("tables").at(0).at("rows"))
    by_leaf[stack_functions(row).empty() ? "" : stack_functions(row)[0]] += row.at("values").at("count").get<double>();
  EXPECT_EQ(by_leaf["pool_allocate"], 4 * 200.0);
  EXPECT_EQ(by_leaf["pool_churn"], 0.0);
  // Nothing was dropped: every thread's batches reached the file.
  const std::string log = read_text(c.experiment / "collector.log");
  EXPECT_NE(log.find("event: end"), std::string::npos) << log;
  EXPECT_NE(log.find("dropped_records: 0}"), std::string::npos) << log;
}

// ---- C++ new and delete ----

TEST(HeapCpp, NewAndDeleteAreCountedUnderTheirCallers) {
  TempDir dir;
  const Collection c = collect(dir, {"-H", "on"}, heap_target("heap_cpp_target"));
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  TempDir alone_dir;
  EXPECT_EQ(c.run.out, run_alone(alone_dir, "heap_cpp_target").out);
  EXPECT_NE(c.run.out.find("aligned new on 64: 1\n"), std::string::npos);
  EXPECT_EQ(c.run.out.find("aligned new on 64: 0"), std::string::npos);
  const auto rows = heap_rows(c.experiment);
  // operator new is the leaf; its callers' inclusive figures are exact.
  for (const auto& [function, truth] : c.truth.at("functions").items())
    expect_function_equals_truth(rows, function, truth, "i.");
  bool saw_operator_new = false;
  for (const auto& [name, values] : rows)
    if (name.rfind("operator new", 0) == 0 && values.at("i.heapalloccnt").get<double>() > 0) saw_operator_new = true;
  EXPECT_TRUE(saw_operator_new);
}

// ---- a function without a name ----

// A function of a stripped library is named by its address and library
// (<static>@0xOFF (libheap_stripped_library.so)) where functions are listed,
// and by its address alone where its library is shown beside it (a stack's
// frame): the library is named once.
TEST(HeapStripped, AFunctionNamedByItsAddressNamesItsLibraryOnce) {
  TempDir dir;
  const Collection c = collect(dir, {"-H", "on"}, heap_target("heap_stripped_target"));
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const json& truth = c.truth.at("functions").at("allocate_unnamed");
  const std::string library = "libheap_stripped_library.so";
  std::string listed;
  // The stripped library's (the C library's own may be unnamed too where
  // its debug symbols are not installed).
  for (const auto& [name, values] : heap_rows(c.experiment))
    if (name.rfind("<static>@0x", 0) == 0 && name.ends_with(" (" + library + ")")) {
      EXPECT_TRUE(listed.empty()) << "one unnamed function: " << listed << ", " << name;
      listed = name;
      expect_function_equals_truth({{name, values}}, name, truth, "i.");
    }
  EXPECT_TRUE(listed.ends_with(" (" + library + ")")) << listed;
  const std::string address = listed.substr(0, listed.find(' '));

  const json leaks = er_print_json({"-leaks"}, c.experiment);
  json row;
  for (const json& leak : leaks.at("tables").at(0).at("rows"))
    if (row.is_null() && !stack_functions(leak).empty()) row = leak;  // the largest with a stack
  EXPECT_EQ(row.at("values").at("bytes").get<double>(), truth.at("leaked_bytes").get<double>());
  ASSERT_GE(row.at("stack").size(), 2u) << row.dump();
  EXPECT_EQ(row.at("stack").at(0).at("function"), address);
  EXPECT_EQ(row.at("stack").at(0).at("load_object"), library);
  EXPECT_EQ(row.at("stack").at(1).at("function"), "stripped_leak");

  const ProcessResult text = run_process({(bin_dir() / "er_print").string(), "-leaks", c.experiment.string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(address + " (" + library + ")\n"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find(library + ") (" + library + ")"), std::string::npos) << text.out;
}

// ---- a signal handler and a fork child ----

TEST(HeapSignalFork, HandlerAndForkChildAllocationsAreExact) {
  TempDir dir;
  const Collection c = collect(dir, {"-H", "on"}, heap_target("heap_signal_fork_target"));
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, "handled 3 signals; child exited 3\n");
  json child_truth;
  for (const auto& entry : fs::directory_iterator(dir.path()))
    if (entry.path().filename().string().rfind("truth.json.", 0) == 0) child_truth = json::parse(read_text(entry.path()));
  ASSERT_TRUE(child_truth.contains("functions")) << "the child wrote no truth";
  ASSERT_TRUE(fs::exists(c.experiment / "_f1.er"));

  // The parent's experiment alone: the handler's and parent_work's blocks.
  const auto parent = heap_rows(c.experiment);
  for (const auto& [function, truth] : c.truth.at("functions").items())
    expect_function_equals_truth(parent, function, truth, "i.");
  // The child's sub-experiment alone: its own work, nothing of the parent's
  // from before the fork.
  const auto child = heap_rows(c.experiment / "_f1.er");
  expect_function_equals_truth(child, "child_work", child_truth.at("functions").at("child_work"), "i.");
  EXPECT_EQ(value(child, "on_signal", "e.heapalloccnt"), 0.0);
  EXPECT_EQ(value(child, "<Total>", "i.heapalloccnt"), totals_of(child_truth).allocations);
}

// ---- combined with clock profiling, and the shipped profile ----

TEST(HeapWithClock, HeapCountsStayExactBesideClockProfiling) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "on", "-H", "on"}, heap_target("heap_allocators_target"));
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const json metrics = er_print_json({"-metric_list"}, c.experiment);
  const std::string listed = metrics.dump();
  EXPECT_NE(listed.find("heapalloccnt"), std::string::npos) << listed;
  EXPECT_NE(listed.find("\"user\""), std::string::npos) << listed;
  const auto rows =
      rows_by_name(er_print_json({"-metrics", std::string("i.totalcpu:") + kHeapMetrics, "-functions"}, c.experiment));
  for (const auto& [function, truth] : c.truth.at("functions").items())
    expect_function_equals_truth(rows, function, truth, "i.");
  expect_totals_equal_truth(rows, all_of(c));
  EXPECT_TRUE(rows.at("<Total>").contains("i.totalcpu"));
}

// SIGPROF every millisecond of each thread's CPU time lands inside the
// interposers and the recording too; the counts stay exact.
TEST(HeapWithClock, ThreadsStayExactUnderOneMillisecondProfiling) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "hi", "-H", "on"}, heap_target("heap_threads_target"), {"4", "20000"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto rows =
      rows_by_name(er_print_json({"-metrics", std::string("i.totalcpu:") + kHeapMetrics, "-functions"}, c.experiment));
  for (const char* function : {"pool_allocate", "pool_churn"})
    expect_function_equals_truth(rows, function, c.truth.at("functions").at(function), "i.");
  EXPECT_GT(value(rows, "<Total>", "i.totalcpu"), 0.0);
  // The program's five threads: the compressor is the runtime's own.
  const json threads = er_print_json({"-thread_list"}, c.experiment);
  EXPECT_EQ(threads.at("rows").size(), 5u) << threads.dump();
}

TEST(HeapProfile, ShippedProfileTracesTheHeap) {
  TempDir dir;
  const Collection c = collect(dir, {"--profile", "heap"}, heap_target("heap_allocators_target"));
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto rows = heap_rows(c.experiment);
  for (const auto& [function, truth] : c.truth.at("functions").items())
    expect_function_equals_truth(rows, function, truth, "i.");
  expect_totals_equal_truth(rows, all_of(c));
}

TEST(HeapOff, NothingIsTracedWithHeapOff) {
  TempDir dir;
  const Collection c = collect(dir, {"-H", "off"}, heap_target("heap_allocators_target"));
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_FALSE(fs::exists(c.experiment / "heaptrace"));
}


// ---- a library unloaded, another loaded at its address ----

// The monotonic time collection started at, from the collector's log.
uint64_t collection_start_ns(const fs::path& experiment) {
  std::istringstream log(read_text(experiment / "collector.log"));
  std::string line;
  while (std::getline(log, line)) {
    if (line.find("event: start") == std::string::npos) continue;
    const size_t at = line.find("time_ns: ");
    if (at != std::string::npos) return std::stoull(line.substr(at + 9));
  }
  return 0;
}

std::map<std::string, json> leaks_by_leaf(const json& view) {
  std::map<std::string, json> rows;
  for (const json& row : view.at("tables").at(0).at("rows")) {
    const auto frames = stack_functions(row);
    if (frames.empty()) continue;
    json& r = rows[frames[0]];
    if (r.is_null()) r = {{"count", 0.0}, {"bytes", 0.0}};
    r["count"] = r["count"].get<double>() + row.at("values").at("count").get<double>();
    r["bytes"] = r["bytes"].get<double>() + row.at("values").at("bytes").get<double>();
    r["load_object"] = row.at("stack").at(0).at("load_object");
  }
  return rows;
}

// One run of the target, shared by the tests below (removed at exit).
struct DlcloseRun {
  TempDir dir;
  Collection collection;
  json times;  // a_done_ns, b_starts_ns, same_address
};

const DlcloseRun& dlclose_run() {
  static DlcloseRun run;  // TempDir is not to be copied: filled in place
  static const bool collected = [] {
    // CPU-only clock profiling: the off-CPU sampler's thread and mappings
    // would take the address the target frees for B to reuse.
    run.collection = collect(run.dir, {"-H", "on", "-states", "off"}, heap_target("heap_dlclose_target"),
                             {heap_target("libheap_dlclose_a.so"), heap_target("libheap_dlclose_b.so")});
    const std::string times = read_text(run.dir.path() / "truth.json.times");
    if (!times.empty()) run.times = json::parse(times);
    return true;
  }();
  (void)collected;
  return run;
}

// The case only exists when the target ran and the loader reused A's
// address for B.
#define ASSERT_DLCLOSE_CASE(run)                                                        \
  ASSERT_EQ((run).collection.run.exit_code, 0) << (run).collection.run.err;             \
  ASSERT_TRUE((run).times.contains("same_address")) << "the target wrote no times";     \
  ASSERT_EQ((run).times.at("same_address").get<int>(), 1) << "B was not loaded where A was"

// Leaks and allocations made in A are A's, though B sits at their addresses
// when the recording ends.
TEST(HeapDlclose, LeaksAndAllocsNameTheLibraryOfTheirTime) {
  const DlcloseRun& run = dlclose_run();
  ASSERT_DLCLOSE_CASE(run);
  const Collection* run_ = &run.collection;
  const json& truth = run_->truth.at("functions");
  for (const char* command : {"-leaks", "-allocs"}) {
    SCOPED_TRACE(command);
    const auto rows = leaks_by_leaf(er_print_json({command}, run_->experiment));
    ASSERT_TRUE(rows.count("liba_leak")) << er_print_json({command}, run_->experiment).dump();
    ASSERT_TRUE(rows.count("libb_leak"));
    EXPECT_EQ(rows.at("liba_leak").at("count").get<double>(), truth.at("liba_leak").at("leaks").get<double>());
    EXPECT_EQ(rows.at("liba_leak").at("bytes").get<double>(), truth.at("liba_leak").at("leaked_bytes").get<double>());
    EXPECT_EQ(rows.at("liba_leak").at("load_object"), "libheap_dlclose_a.so");
    EXPECT_EQ(rows.at("libb_leak").at("count").get<double>(), truth.at("libb_leak").at("leaks").get<double>());
    EXPECT_EQ(rows.at("libb_leak").at("load_object"), "libheap_dlclose_b.so");
  }
  // -functions resolves the same way.
  const auto functions = heap_rows(run_->experiment);
  EXPECT_EQ(value(functions, "liba_leak", "i.heapleakcnt"), truth.at("liba_leak").at("leaks").get<double>());
  EXPECT_EQ(value(functions, "libb_leak", "i.heapleakcnt"), truth.at("libb_leak").at("leaks").get<double>());
}

// A time filter splits the leaks at a moment between A's and B's
// allocations (the target measured both ends of its pause).
TEST(HeapDlclose, TimeFiltersSelectTheLeaksOfTheirTime) {
  const DlcloseRun& run = dlclose_run();
  ASSERT_DLCLOSE_CASE(run);
  const Collection* run_ = &run.collection;
  const json* times_ = &run.times;
  const uint64_t start = collection_start_ns(run_->experiment);
  ASSERT_GT(start, 0u);
  const uint64_t middle = (times_->at("a_done_ns").get<uint64_t>() + times_->at("b_starts_ns").get<uint64_t>()) / 2;
  ASSERT_GT(middle, start);
  const std::string seconds = std::to_string(static_cast<double>(middle - start) / 1e9);
  const json& truth = run_->truth.at("functions");
  for (const char* command : {"-leaks", "-allocs"}) {
    SCOPED_TRACE(command);
    const auto before = leaks_by_leaf(er_print_json({"-filters", "time <= " + seconds, command}, run_->experiment));
    EXPECT_EQ(before.count("libb_leak"), 0u);
    ASSERT_TRUE(before.count("liba_leak"));
    EXPECT_EQ(before.at("liba_leak").at("count").get<double>(), truth.at("liba_leak").at("leaks").get<double>());
    const auto after = leaks_by_leaf(er_print_json({"-filters", "time >= " + seconds, command}, run_->experiment));
    EXPECT_EQ(after.count("liba_leak"), 0u);
    ASSERT_TRUE(after.count("libb_leak"));
    EXPECT_EQ(after.at("libb_leak").at("count").get<double>(), truth.at("libb_leak").at("leaks").get<double>());
  }
  // -heap agrees with -leaks under each filter (the loader's own blocks
  // count too), and the two sides add up to the whole.
  double parts = 0;
  for (const std::string& clause : {"time <= " + seconds, "time >= " + seconds}) {
    const json heap = er_print_json({"-filters", clause, "-heap"}, run_->experiment);
    const json leaks = er_print_json({"-filters", clause, "-leaks"}, run_->experiment);
    EXPECT_EQ(heap.at("summary").at("leaks").get<double>(), leaks.at("summary").at("leaks").get<double>()) << clause;
    parts += heap.at("summary").at("leaks").get<double>();
  }
  EXPECT_EQ(parts, er_print_json({"-heap"}, run_->experiment).at("summary").at("leaks").get<double>());
}

// -leaks and -allocs after a view that decoded the events (-functions)
// sum the session's events per stack instead of reading the records again:
// the same tables, under no filter and under time filters on each side of
// the library swap (map epochs), and the heap records are opened by the
// session's first view only (counted with strace where it may trace).
TEST(HeapDlclose, ViewsAfterTheFunctionsReadNoRecordAndShowTheSame) {
  const DlcloseRun& run = dlclose_run();
  ASSERT_DLCLOSE_CASE(run);
  const fs::path& experiment = run.collection.experiment;
  const uint64_t start = collection_start_ns(experiment);
  const uint64_t middle = (run.times.at("a_done_ns").get<uint64_t>() + run.times.at("b_starts_ns").get<uint64_t>()) / 2;
  ASSERT_GT(middle, start);
  const std::string seconds = std::to_string(static_cast<double>(middle - start) / 1e9);
  for (const std::vector<std::string>& filter :
       std::vector<std::vector<std::string>>{{}, {"-filters", "time <= " + seconds}, {"-filters", "time >= " + seconds}}) {
    for (const char* command : {"-leaks", "-allocs"}) {
      SCOPED_TRACE(std::string(command) + (filter.empty() ? "" : " " + filter[1]));
      std::vector<std::string> alone = filter, after = filter;
      alone.push_back(command);
      after.insert(after.end(), {"-functions", command});
      const json read = er_print_json(alone, experiment);
      const json summed = er_print_json(after, experiment);
      ASSERT_EQ(summed.at("views").size(), 2u) << summed.dump();
      EXPECT_EQ(summed.at("views").at(1), read);
      EXPECT_FALSE(read.at("tables").at(0).at("rows").empty());
    }
  }

  if (run_process({"strace", "-o", "/dev/null", "true"}).exit_code != 0)
    GTEST_SKIP() << "strace cannot trace here: the records' reads are not counted";
  const auto heaptrace_opens = [&](const std::vector<std::string>& views) {
    TempDir trace_dir;
    const fs::path trace = trace_dir.path() / "opens";
    std::vector<std::string> argv = {"strace", "-f", "-e", "trace=open,openat", "-o", trace.string(),
                                     (bin_dir() / "er_print").string()};
    argv.insert(argv.end(), views.begin(), views.end());
    argv.push_back(experiment.string());
    const ProcessResult r = run_process(argv);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(read_text(trace));
    int opens = 0;
    for (std::string line; std::getline(lines, line);)
      if (line.find("/heaptrace\"") != std::string::npos && line.find("= -1") == std::string::npos) ++opens;
    return opens;
  };
  const int one_view = heaptrace_opens({"-functions"});
  EXPECT_GT(one_view, 0);
  EXPECT_EQ(heaptrace_opens({"-functions", "-leaks", "-allocs", "-calltree"}), one_view);
}

// A function filter cannot apply to a view of records: refused by name.
// A CPU list does not apply to them either: said, and all are counted.
TEST(HeapDlclose, FiltersAViewCannotApplyAreNamed) {
  const DlcloseRun& run = dlclose_run();
  ASSERT_DLCLOSE_CASE(run);
  const Collection* run_ = &run.collection;
  const ProcessResult refused = run_process({(bin_dir() / "er_print").string(), "-filters", "function == liba_leak",
                                             "-leaks", run_->experiment.string()});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("-leaks cannot apply the filter 'function == liba_leak'"), std::string::npos)
      << refused.err;
  const ProcessResult cpus = run_process({(bin_dir() / "er_print").string(), "--format=json", "-cpu_select", "0",
                                          "-leaks", run_->experiment.string()});
  EXPECT_EQ(cpus.exit_code, 0) << cpus.err;
  EXPECT_NE(cpus.err.find("-leaks: its records carry no CPU, so the CPU list (0) does not apply"), std::string::npos)
      << cpus.err;
  const json& truth = run_->truth.at("functions");
  const auto rows = leaks_by_leaf(json::parse(cpus.out));
  EXPECT_EQ(rows.at("liba_leak").at("count").get<double>(), truth.at("liba_leak").at("leaks").get<double>());
}

// -cpu_select beside clock profiling (whose samples record their CPU): heap
// events record none; they are all kept (and er_print says so) rather than
// silently dropped.
TEST(HeapWithClock, CpuSelectionKeepsEventsWithoutACpu) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "hi", "-H", "on"}, heap_target("heap_threads_target"), {"4", "20000"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const ProcessResult r = run_process({(bin_dir() / "er_print").string(), "--format=json", "-cpu_select", "0",
                                       "-metrics", std::string("i.totalcpu:") + kHeapMetrics, "-functions",
                                       c.experiment.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("events record no CPU (heap, synchronization, MPI tracing) and are all kept"), std::string::npos)
      << r.err;
  const auto rows = rows_by_name(json::parse(r.out));
  for (const char* function : {"pool_allocate", "pool_churn"})
    expect_function_equals_truth(rows, function, c.truth.at("functions").at(function), "i.");
}

// ---- collect -L: the data limit ----

// Recording stops at the limit; the header says so and when, and every view
// says its figures are partial (they are: fewer allocations than the truth).
TEST(HeapDataLimit, AReachedLimitIsSaidInTheHeaderAndEveryView) {
  TempDir dir;
  const Collection c = collect(dir, {"-H", "on", "-L", "1"}, heap_target("heap_threads_target"), {"4", "40000"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, "threads_target done: 4 threads x 40000 blocks\n");  // the target ran on
  const std::string log = read_text(c.experiment / "collector.log");
  EXPECT_NE(log.find("event: size_limit_reached, limit_bytes: 1048576, time_ns: "), std::string::npos) << log;

  const json header = er_print_json({"-header"}, c.experiment);
  const std::string header_text = header.dump();
  EXPECT_NE(header_text.find("recording stopped "), std::string::npos) << header_text;
  EXPECT_NE(header_text.find(" s after collection start: the data files reached its limit of 1 MB (collect -L)"),
            std::string::npos)
      << header_text;

  for (const char* command : {"-leaks", "-allocs", "-heap", "-functions", "-header"}) {
    const ProcessResult r = run_process({(bin_dir() / "er_print").string(), command, c.experiment.string()});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("recording stopped "), std::string::npos) << command << ": " << r.err;
    EXPECT_NE(r.err.find("its limit of 1 MB (collect -L)"), std::string::npos) << command << ": " << r.err;
  }
  const json allocs = er_print_json({"-allocs"}, c.experiment);
  EXPECT_LT(allocs.at("summary").at("allocations").get<double>(), totals_of(c.truth).allocations);
}

// Under a limit it never reached, the header says the limit and nothing is
// said to be missing.
TEST(HeapDataLimit, ALimitNotReachedIsNotAWarning) {
  TempDir dir;
  const Collection c = collect(dir, {"-H", "on", "-L", "500"}, heap_target("heap_allocators_target"));
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const ProcessResult r = run_process({(bin_dir() / "er_print").string(), "-header", c.experiment.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("recording stopped"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Data limit (-L), not reached"), std::string::npos) << r.out;
  expect_totals_equal_truth(heap_rows(c.experiment), all_of(c));
}


// ---- compressed data: the same as uncompressed ----

using heap::HeapCompressed;
using heap::kPairedCompactRecord;

namespace compressed {

// Collects `target` into DIR/NAME.er with the heap plugin at zstd `level`
// (0: uncompressed), through a profile of the test's own.
Collection collect_at_level(const TempDir& dir, const std::string& name, int level, const std::string& target,
                            const std::vector<std::string>& target_args) {
  const fs::path profile = dir.path() / (name + ".yaml");
  std::ofstream(profile) << "description: heap at zstd level " << level << "\nplugins:\n  heap:\n    enable: on\n"
                         << "    compress: " << level << "\n";
  TempDir own;
  Collection c = collect(own, {"--profile", profile.string()}, target, target_args);
  const fs::path moved = dir.path() / (name + ".er");
  fs::rename(c.experiment, moved);
  c.experiment = moved;
  return c;
}

// Record kinds of a data file, counted, and the offset of the first record
// of `wanted` (walking the blocks as lumen/record_format.h lays them out).
struct KindCount {
  std::map<uint16_t, size_t> count;
  uint64_t first_offset = 0;
};
KindCount record_kinds(const fs::path& file, uint16_t wanted) {
  const std::string bytes = read_text(file);
  KindCount out;
  for (size_t block = 0; block + LUMEN_BLOCK_BYTES <= bytes.size(); block += LUMEN_BLOCK_BYTES) {
    for (size_t at = block + sizeof(lumen_block_header); at + 4 <= block + LUMEN_BLOCK_BYTES;) {
      uint32_t word;
      std::memcpy(&word, bytes.data() + at, 4);
      if (word == 0) break;
      const uint16_t kind = lumen_record_kind(word);
      if (kind == wanted && out.count[kind] == 0) out.first_offset = at;
      out.count[kind] += 1;
      at += lumen_record_span(lumen_record_payload_bytes(word));
    }
  }
  return out;
}

// Every heap view, as JSON text; the peak's time is when it happened in
// this run, not what was recorded, and is left out.
std::vector<std::string> heap_views(const fs::path& experiment) {
  std::vector<std::string> out;
  out.push_back(er_print_json({"-metrics", kHeapMetrics, "-functions"}, experiment).dump());
  out.push_back(er_print_json({"-metrics", kHeapMetrics, "-calltree"}, experiment).dump());
  out.push_back(er_print_json({"-leaks"}, experiment).dump());
  out.push_back(er_print_json({"-allocs"}, experiment).dump());
  json heap = er_print_json({"-heap"}, experiment);
  const std::string text = heap.dump();
  out.push_back(std::regex_replace(text, std::regex("\"peak_time\"[^,}]*"), "\"peak_time\""));
  return out;
}

void expect_same_views(const std::string& target, const std::vector<std::string>& args) {
  TempDir dir;
  const Collection plain = collect_at_level(dir, "plain", 0, target, args);
  const Collection packed = collect_at_level(dir, "packed", 3, target, args);
  ASSERT_EQ(plain.run.exit_code, 0) << plain.run.err;
  ASSERT_EQ(packed.run.exit_code, 0) << packed.run.err;
  const KindCount plain_kinds = record_kinds(plain.experiment / "heaptrace", kPairedCompactRecord);
  const KindCount packed_kinds = record_kinds(packed.experiment / "heaptrace", kPairedCompactRecord);
  EXPECT_EQ(plain_kinds.count.count(kPairedCompactRecord), 0u) << "compress: 0 wrote compressed records";
  ASSERT_GT(packed_kinds.count.count(kPairedCompactRecord), 0u) << "no compact record was written";
  const std::vector<std::string> a = heap_views(plain.experiment), b = heap_views(packed.experiment);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i], b[i]) << "view " << i;
  // And both are the truth.
  const auto rows = heap_rows(packed.experiment);
  for (const auto& [function, truth] : packed.truth.at("functions").items())
    expect_function_equals_truth(rows, function, truth, "i.");
}

}  // namespace compressed

TEST(HeapCompression, EveryViewReadsTheSameAsUncompressed) {
  compressed::expect_same_views(heap_target("heap_allocators_target"), {});
}

// One thread (its interleaving with others would move the peak between
// runs), many batches: most of them reach the file compressed.
TEST(HeapCompression, ManyBatchesReadTheSameAsUncompressed) {
  compressed::expect_same_views(heap_target("heap_threads_target"), {"1", "60000"});
}

// Every heap view names the file and the offset of a record it cannot
// read, whether one thread reads the file or several read it in parts.
TEST(HeapCompression, ACorruptCompressedRecordIsAnErrorNamingFileAndOffset) {
  TempDir dir;
  const Collection c = compressed::collect_at_level(dir, "packed", 1, heap_target("heap_threads_target"), {"1", "20000"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const fs::path file = c.experiment / "heaptrace";
  const compressed::KindCount kinds = compressed::record_kinds(file, kPairedCompactRecord);
  ASSERT_GT(kinds.count.count(kPairedCompactRecord), 0u);
  {
    // Inside the frame, past the record word, HeapCompressed and zstd's frame header.
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(kinds.first_offset + 4 + sizeof(HeapCompressed) + 24));
    const std::string garbage(64, '\x5a');
    f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  const std::string place = file.string() + " at offset " + std::to_string(kinds.first_offset);
  const std::vector<std::vector<std::string>> views{
      {"-metrics", kHeapMetrics, "-functions"}, {"-leaks"}, {"-allocs"}, {"-heap"}};
  for (const std::vector<std::string>& view : views)
    for (const char* threads : {"1", "2"}) {
      SCOPED_TRACE(view.back() + " on " + threads + " threads");
      const ProcessResult r = er_print_on_threads(c.experiment, view, threads, "1");
      EXPECT_NE(r.exit_code, 0);
      EXPECT_NE(r.err.find(place), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("compressed heap record"), std::string::npos) << r.err;
    }
}

// ---- decoded in parts on several threads ----

// Heap files are read in parts on several threads, each part keeping the
// latest event per address and its per-stack sums, merged in file order:
// the views read the same, byte for byte, as one part read by one thread,
// and the same as the truth. Eight threads free each other's blocks, so
// pairing across parts matters.
TEST(HeapParallel, LeaksAllocsAndHeapMetricsReadTheSameOnAnyNumberOfThreads) {
  TempDir dir;
  const Collection c = collect(dir, {"-H", "on"}, heap_target("heap_threads_target"), {"8", "100000"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const uint64_t blocks = fs::file_size(c.experiment / "heaptrace") / LUMEN_BLOCK_BYTES;
  ASSERT_GT(blocks, 16u) << "not several parts of the default size";
  const std::vector<std::vector<std::string>> views{
      {"--format=json", "-leaks"}, {"--format=json", "-allocs"},
      {"--format=json", "-metrics", kHeapMetrics, "-functions"}};
  for (const std::vector<std::string>& view : views) {
    SCOPED_TRACE(view.back());
    const ProcessResult one = er_print_on_threads(c.experiment, view, "1", "1000000");
    ASSERT_EQ(one.exit_code, 0) << one.err;
    for (const auto& [threads, part_blocks] :
         std::vector<std::pair<std::string, std::string>>{{"1", "16"}, {"2", "16"}, {"2", "1"}, {"4", "3"}}) {
      const ProcessResult parts = er_print_on_threads(c.experiment, view, threads, part_blocks);
      EXPECT_EQ(parts.exit_code, 0) << parts.err;
      EXPECT_EQ(parts.out, one.out) << threads << " threads, parts of " << part_blocks << " blocks";
    }
  }
  // And two threads read the truth.
  const ProcessResult functions =
      er_print_on_threads(c.experiment, {"--format=json", "-metrics", kHeapMetrics, "-functions"}, "2", "16");
  const auto rows = rows_by_name(json::parse(functions.out));
  for (const char* function : {"pool_allocate", "pool_churn"})
    expect_function_equals_truth(rows, function, c.truth.at("functions").at(function), "i.");
  EXPECT_EQ(value(rows, "worker", "i.heapleakcnt"), 8 * 1000.0);
  const ProcessResult leaks = er_print_on_threads(c.experiment, {"--format=json", "-leaks"}, "2", "16");
  const json summary = json::parse(leaks.out).at("summary");
  // The workers' leaks and the few the C library keeps (stdio buffers).
  EXPECT_EQ(summary.at("leaks").get<double>(), value(rows, "<Total>", "i.heapleakcnt")) << summary.dump();
  EXPECT_EQ(summary.at("bytes").get<double>(), value(rows, "<Total>", "i.heapleakbytes")) << summary.dump();
}

}  // namespace
}  // namespace lumen::test
