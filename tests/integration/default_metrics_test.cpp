// The metrics er_print shows when no metric list is given, as each plugin
// declares them (lumen_metric_def.default_flavors, hidden_by_default), on
// real experiments of each data type: Total CPU Time without its parts,
// the thread states only where no clock profiling recorded beside them,
// heap and sync counts inclusive only; and a hidden metric named with
// -metrics shows as any other.
#include <gtest/gtest.h>

#include <algorithm>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

using Specs = std::vector<std::string>;

Specs shown_columns(const nlohmann::json& view) {
  Specs specs;
  for (const auto& metric : view.at("metrics")) specs.push_back(metric.at("spec").get<std::string>());
  return specs;
}

Specs default_columns(const Collection& c) {
  EXPECT_EQ(c.run.exit_code, 0) << c.run.err;
  return shown_columns(er_print_json({"-functions"}, c.experiment));
}

TEST(DefaultMetrics, ClockShowsTotalCpuTimeAndItsPartsWhenNamed) {
  TempDir dir;
  const Collection clock = collect(dir, {"-p", "on", "-states", "off"}, "threads_target", {"0.3"});
  EXPECT_EQ(default_columns(clock), (Specs{"e.totalcpu", "e.%totalcpu", "i.totalcpu", "i.%totalcpu"}));
  const nlohmann::json named = er_print_json({"-metrics", "e.user:e.system:e.totalcpu:name", "-functions"}, clock.experiment);
  EXPECT_EQ(shown_columns(named), (Specs{"e.user", "e.system", "e.totalcpu"}));
  const nlohmann::json total = rows_by_name(named).at("<Total>");
  EXPECT_GT(total.at("e.totalcpu").get<double>(), 0.1);  // of 0.45 s the threads burn
  // Each sample's time is its user and system parts.
  EXPECT_NEAR(total.at("e.user").get<double>() + total.at("e.system").get<double>(), total.at("e.totalcpu").get<double>(),
              1e-6);
}

TEST(DefaultMetrics, StatesHideBesideClockProfilingAndShowWithout) {
  TempDir dir;
  const Collection both = collect(dir, {"-p", "on"}, "threads_target", {"0.3"});
  ASSERT_TRUE(std::filesystem::exists(both.experiment / "states")) << "-p on records the states";
  EXPECT_EQ(default_columns(both), (Specs{"e.totalcpu", "e.%totalcpu", "i.totalcpu", "i.%totalcpu"}));
  // Named, a state shows: the main thread waits in pthread_join.
  const nlohmann::json named = er_print_json({"-metrics", "i.lock:i.total:name", "-functions"}, both.experiment);
  EXPECT_EQ(shown_columns(named), (Specs{"i.lock", "i.total"}));
  EXPECT_GT(rows_by_name(named).at("<Total>").at("i.total").get<double>(), 0.3);

  TempDir alone_dir;
  const Collection alone = collect(alone_dir, {"-p", "off", "-states", "on"}, "threads_target", {"0.3"});
  const Specs alone_columns = default_columns(alone);
  ASSERT_FALSE(alone_columns.empty());
  EXPECT_EQ(alone_columns.front(), "e.wait");
  for (const char* spec : {"e.lock", "i.lock", "e.sleep", "i.sleep", "e.total", "i.total"})
    EXPECT_NE(std::find(alone_columns.begin(), alone_columns.end(), spec), alone_columns.end()) << spec;
}

TEST(DefaultMetrics, HeapCountsAreInclusiveOnly) {
  TempDir dir;
  const Collection heap = collect(dir, {"-p", "off", "-H", "on"}, "threads_target", {"0.1"});
  EXPECT_EQ(default_columns(heap),
            (Specs{"i.heapalloccnt", "i.%heapalloccnt", "i.heapallocbytes", "i.heapleakcnt", "i.heapleakbytes"}));
  const nlohmann::json named = er_print_json({"-metrics", "e.heapalloccnt:i.heapalloccnt:name", "-functions"},
                                             heap.experiment);
  const auto rows = rows_by_name(named);
  // The allocation functions are the leaves: their own counts add up to all.
  EXPECT_GT(rows.at("<Total>").at("i.heapalloccnt").get<double>(), 0.0);
  EXPECT_EQ(rows.at("<Total>").at("e.heapalloccnt"), rows.at("<Total>").at("i.heapalloccnt"));
}

TEST(DefaultMetrics, SyncWaitsAreInclusiveOnlyAndTheDefaultKeywordAgrees) {
  TempDir dir;
  const Collection sync = collect(dir, {"-p", "off", "-s", "all"}, "threads_target", {"0.2"});
  const Specs expected{"i.sync", "i.%sync", "i.syncn"};
  EXPECT_EQ(default_columns(sync), expected);
  EXPECT_EQ(shown_columns(er_print_json({"-metrics", "default", "-functions"}, sync.experiment)), expected);
  // CSV shows the same columns.
  const ProcessResult csv =
      run_process({(bin_dir() / "er_print").string(), "--format=csv", "-functions", sync.experiment.string()});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  const std::string header = csv.out.substr(0, csv.out.find('\n'));
  EXPECT_NE(header.find("i.sync,i.%sync,i.syncn"), std::string::npos) << header;
  EXPECT_EQ(header.find("e."), std::string::npos) << header;
  // The main thread waited in pthread_join for the others.
  EXPECT_GT(rows_by_name(er_print_json({"-functions"}, sync.experiment)).at("main").at("i.syncn").get<double>(), 0.0);
}

}  // namespace
}  // namespace lumen::test
