// A session decodes its experiments once into cells (event_cells.h) and
// sums every later selection from them: the aggregate from the cells must
// be the one a pass over the files with that selection makes, key for key,
// thread share for thread share, in the same order, for every kind of
// selection the cells can answer: thread, sample, experiment and rank
// lists, expressions, time bounds at bin edges; and when a bound splits a
// cell, or CPUs or an expression's TSTAMP choose, the cells must say they
// cannot.
// Experiments: clock profiling with heap tracing (leaks are emitted when a
// file ends) and periodic samples, and synchronization tracing (traced-call
// stacks), opened together.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <map>

#include "analysis_plugins.h"
#include "event_cells.h"
#include "event_selection.h"
#include "experiment_metrics.h"
#include "interval_split.h"
#include "lumen_commands.h"
#include "program_structure.h"

namespace lumen::test {
namespace {

using namespace analysis;

struct Opened {
  std::vector<std::unique_ptr<Experiment>> experiments;
  MetricRegistry registry;
  ProgramStructure structure;
};

void expect_same(const StackAggregate& cells, const StackAggregate& pass, const std::string& what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(cells.metric_count(), pass.metric_count());
  EXPECT_EQ(cells.events_read, pass.events_read);
  EXPECT_EQ(cells.events_with_cpu, pass.events_with_cpu);
  ASSERT_EQ(cells.keys().size(), pass.keys().size());
  for (size_t r = 0; r < pass.keys().size(); ++r) {
    ASSERT_TRUE(cells.keys()[r] == pass.keys()[r]) << "row " << r;
    for (size_t m = 0; m < pass.metric_count(); ++m) ASSERT_EQ(cells.row(r)[m], pass.row(r)[m]) << "row " << r;
  }
  ASSERT_EQ(cells.thread_shares(), pass.thread_shares());
  for (size_t s = 0; s < pass.thread_shares(); ++s) {
    ASSERT_EQ(cells.share_key(s), pass.share_key(s)) << "share " << s;
    ASSERT_EQ(cells.share_events(s), pass.share_events(s)) << "share " << s;
    for (size_t m = 0; m < pass.metric_count(); ++m) ASSERT_EQ(cells.share_values(s)[m], pass.share_values(s)[m]);
  }
}

class EventCellsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Collection heap = collect(dir_, {"-p", "hi", "-H", "on", "-S", "0.05"}, "threads_target", {"0.4"});
    ASSERT_EQ(heap.run.exit_code, 0) << heap.run.err;
    const Collection sync = collect(sync_dir_, {"-p", "hi", "-s", "all"}, LUMEN_SYNC_TARGET, {"all"});
    ASSERT_EQ(sync.run.exit_code, 0) << sync.run.err;
    for (const auto& path : {heap.experiment, sync.experiment}) {
      opened_.experiments.push_back(std::make_unique<Experiment>(path, plugins_));
      register_metrics(*opened_.experiments.back(), opened_.registry);
    }
    shaper_ = std::make_unique<StackShaper>(opened_.experiments, opened_.structure, ViewMode::User, false);
    cells_ = std::make_unique<EventCells>(opened_.experiments, opened_.registry, *shaper_);
  }

  // What a pass over the files with the selections (and `only`) sums.
  StackAggregate pass(const std::vector<EventSelection>& selections, const EventFilter& only = {}) {
    std::vector<EventFilter> filters;
    for (const EventSelection& s : selections)
      if (EventFilter f = event_filter(s, opened_.experiments)) filters.push_back(std::move(f));
    if (only) filters.push_back(only);
    const EventFilter all = [filters](size_t e, const lumen_event& event) {
      for (const EventFilter& f : filters)
        if (!f(e, event)) return false;
      return true;
    };
    const SampledParts sampled(opened_.experiments, opened_.registry);
    return aggregate_events(opened_.experiments, opened_.registry.size(), filters.empty() ? EventFilter{} : all,
                            IntervalSplits(opened_.experiments, opened_.registry), &sampled, *shaper_);
  }
  std::optional<StackAggregate> from_cells(const std::vector<EventSelection>& selections,
                                           const EventFilter& only = {}) {
    return cells_->select(selections, only, SampledParts(opened_.experiments, opened_.registry));
  }
  void expect_answered(const std::vector<EventSelection>& selections, const std::string& what,
                       const EventFilter& only = {}) {
    const std::optional<StackAggregate> cells = from_cells(selections, only);
    ASSERT_TRUE(cells.has_value()) << what;
    expect_same(*cells, pass(selections, only), what);
  }
  static EventSelection lists(const std::string& threads, const std::string& cpus, const std::string& samples) {
    EventSelection s;
    if (!threads.empty()) s.threads = NumberList::parse(threads, "thread list");
    if (!cpus.empty()) s.cpus = NumberList::parse(cpus, "CPU list");
    if (!samples.empty()) s.samples = NumberList::parse(samples, "sample list");
    return s;
  }

  TempDir dir_, sync_dir_;
  AnalysisPlugins plugins_ = AnalysisPlugins::for_command_line({});
  Opened opened_;
  std::unique_ptr<StackShaper> shaper_;
  std::unique_ptr<EventCells> cells_;
};

TEST_F(EventCellsTest, EverySelectionOfWholeCellsSumsAsAPassOverTheFiles) {
  ASSERT_GT(cells_->cells(), 0u);
  expect_answered({}, "no selection");
  expect_answered({lists("1", "", "")}, "thread 1");
  expect_answered({lists("2-4", "", "")}, "threads 2-4");
  expect_answered({lists("", "", "2,4")}, "samples 2 and 4");
  expect_answered({lists("1-3", "", "1-3"), parse_filter_expression("THRID == 2 || SAMPLE IN (1, 3)")},
                  "lists and an expression");
  expect_answered({parse_filter_expression("EXPID == 2 && SAMPLE_MAP < 3")}, "the second experiment's early samples");
  expect_answered({}, "the first experiment alone", [](size_t e, const lumen_event&) { return e == 0; });
}

TEST_F(EventCellsTest, TimeBoundsAtBinEdgesSumAsAPassOverTheFiles) {
  const double bin_s = static_cast<double>(cells_->bin_ns()) / 1e9;
  for (const auto& [first_bin, end_bin] : std::vector<std::pair<int, int>>{{0, 20}, {30, 150}, {100, 101}, {50, 100000}}) {
    EventSelection window;
    window.from_s = first_bin * bin_s;
    window.to_s = end_bin * bin_s - 1e-9;  // up to the last nanosecond before the bin at end_bin
    expect_answered({window, lists("1,3", "", "")}, "bins " + std::to_string(first_bin) + "-" + std::to_string(end_bin));
  }
}

TEST_F(EventCellsTest, ABoundThatSplitsACellOrAChoiceByCpuOrByTheTimeInAnExpressionIsLeftToAPass) {
  EXPECT_FALSE(from_cells({parse_filter_expression("TSTAMP >= 100000000")}).has_value());
  EXPECT_FALSE(from_cells({parse_filter_expression("CPUID == 0")}).has_value());
  EXPECT_FALSE(from_cells({lists("", "0", "")}).has_value());
  // Bounds anywhere: the cells answer exactly, or leave it to a pass.
  size_t split = 0;
  for (double from = 0.0001234; from < 0.3; from += 0.0173) {
    EventSelection window;
    window.from_s = from;
    window.to_s = from + 0.0411;
    const std::optional<StackAggregate> cells = from_cells({window});
    if (cells) expect_same(*cells, pass({window}), "from " + std::to_string(from));
    else ++split;
  }
  // With a sample every millisecond on each thread, a bound inside a bin
  // of at least a millisecond falls between two events of some cell.
  EXPECT_GT(split, 0u);
}

// -timeline: each thread's bins add up to its -thread_list figures; a
// bin holds what -filters gives for its time on its thread; its function
// is that selection's leading function.
TEST_F(EventCellsTest, TheTimelineOfEachThreadAddsUpToItsThreadListAndEachBinToItsTime) {
  const std::filesystem::path experiment = opened_.experiments.front()->path();
  const std::vector<std::string> metrics{"-metrics", "e.totalcpu:e.heapalloccnt:e.heapallocbytes"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.begin(), metrics.begin(), metrics.end());
    return er_print_json(args, experiment);
  };
  const nlohmann::json timeline = with({"-timeline"});
  const nlohmann::json threads = with({"-thread_list"});
  ASSERT_GT(timeline["rows"].size(), threads["rows"].size());
  struct Sum {
    uint64_t events = 0, bins = 0;
    double cpu = 0, allocations = 0, bytes = 0;
  };
  std::map<std::string, Sum> by_thread;
  for (const nlohmann::json& row : timeline["rows"]) {
    Sum& sum = by_thread[row["thread"].get<std::string>()];
    sum.events += std::stoull(row["events"].get<std::string>());
    ++sum.bins;
    sum.cpu += row["values"]["e.totalcpu"].get<double>();
    sum.allocations += row["values"]["e.heapalloccnt"].get<double>();
    sum.bytes += row["values"]["e.heapallocbytes"].get<double>();
  }
  for (const nlohmann::json& row : threads["rows"]) {
    const std::string thread = row["thread"].get<std::string>();
    SCOPED_TRACE("thread " + thread);
    const Sum& sum = by_thread[thread];
    EXPECT_EQ(sum.events, std::stoull(row["events"].get<std::string>()));
    EXPECT_EQ(sum.allocations, row["values"]["e.heapalloccnt"].get<double>());
    EXPECT_EQ(sum.bytes, row["values"]["e.heapallocbytes"].get<double>());
    // Times are printed to the microsecond.
    EXPECT_NEAR(sum.cpu, row["values"]["e.totalcpu"].get<double>(), 1e-6 * static_cast<double>(sum.bins + 1));
  }

  // The bin of most CPU time, against -filters over its time.
  const nlohmann::json* busiest = nullptr;
  for (const nlohmann::json& row : timeline["rows"])
    if (busiest == nullptr || row["values"]["e.totalcpu"].get<double>() > (*busiest)["values"]["e.totalcpu"].get<double>())
      busiest = &row;
  ASSERT_NE(busiest, nullptr);
  const std::string thread = (*busiest)["thread"].get<std::string>();
  char window[96];
  std::snprintf(window, sizeof window, "time in %s-%.9f", (*busiest)["start"].get<std::string>().c_str(),
                std::stod((*busiest)["end"].get<std::string>()) - 1e-9);
  SCOPED_TRACE(std::string(window) + " on thread " + thread);
  const nlohmann::json alone = with({"-thread_select", thread, "-filters", window, "-thread_list"});
  const nlohmann::json* same = nullptr;
  for (const nlohmann::json& row : alone["rows"])
    if (row["thread"] == thread) same = &row;
  ASSERT_NE(same, nullptr);
  EXPECT_EQ((*same)["events"], (*busiest)["events"]);
  for (const char* metric : {"e.totalcpu", "e.heapalloccnt", "e.heapallocbytes"})
    EXPECT_EQ((*same)["values"][metric], (*busiest)["values"][metric]) << metric;
  const nlohmann::json functions =
      with({"-thread_select", thread, "-filters", window, "-sort", "e.totalcpu", "-functions"});
  ASSERT_GE(functions["rows"].size(), 2u);  // <Total> and the leading function
  const nlohmann::json& lead = functions["rows"][1];
  if (functions["rows"].size() == 2 ||
      lead["values"]["e.totalcpu"].get<double>() > functions["rows"][2]["values"]["e.totalcpu"].get<double>())
    EXPECT_EQ(lead["name"], (*busiest)["name"]);
}

}  // namespace
}  // namespace lumen::test
