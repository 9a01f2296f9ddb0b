// CPI and IPC in er_print's views, on an experiment hwc_counter_experiment
// wrote with cycles and insts records (this needs no PMU): every row's ratio
// equals the division of the counts written on its stacks, exclusive and
// inclusive, <Total> included, and -sort orders by it. Values are compared
// to the 9 significant digits er_print's JSON carries.
#include <gtest/gtest.h>

#include "counter_ratio_truth.h"
#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
namespace truth = hwc::truth;
using nlohmann::json;

struct Counts {
  double cycles = 0;
  double instructions = 0;
  Counts operator+(const Counts& o) const { return {cycles + o.cycles, instructions + o.instructions}; }
};
Counts counts(const truth::LeafCounts& c) { return {static_cast<double>(c.cycles), static_cast<double>(c.instructions)}; }

void expect_ratio(double shown, double numerator, double denominator, const std::string& what) {
  const double exact = numerator / denominator;
  EXPECT_NEAR(shown, exact, 1e-8 * exact) << what;
}

class HwcRatios : public ::testing::Test {
 protected:
  void SetUp() override {
    experiment_ = dir_.path() / "ratios.er";
    const ProcessResult r = run_process({LUMEN_HWC_COUNTER_EXPERIMENT, experiment_.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  TempDir dir_;
  fs::path experiment_;
};

TEST_F(HwcRatios, EveryFunctionsCpiAndIpcAreTheRatioOfItsCounts) {
  const auto rows = rows_by_name(er_print_json(
      {"-metrics", "e.cycles:i.cycles:e.insts:i.insts:e.CPI:i.CPI:e.IPC:i.IPC:name", "-functions"}, experiment_));
  const Counts alpha = counts(truth::kAlpha), beta = counts(truth::kBeta), gamma = counts(truth::kGamma),
               final_counts = counts(truth::kFinal);
  struct Expected {
    std::string function;
    Counts exclusive, inclusive;
  };
  const Expected expected[] = {
      {"ratio_alpha", alpha, alpha + beta},
      {"ratio_beta", beta, beta},
      {"ratio_gamma", gamma, gamma},
      {"collector_final_counters", final_counts, final_counts},
      {"<Total>", alpha + beta + gamma + final_counts, alpha + beta + gamma + final_counts},
  };
  for (const Expected& e : expected) {
    ASSERT_TRUE(rows.count(e.function)) << e.function;
    const json& row = rows.at(e.function);
    EXPECT_EQ(row.at("e.cycles").get<double>(), e.exclusive.cycles) << e.function;
    EXPECT_EQ(row.at("i.insts").get<double>(), e.inclusive.instructions) << e.function;
    expect_ratio(row.at("e.CPI"), e.exclusive.cycles, e.exclusive.instructions, e.function + " e.CPI");
    expect_ratio(row.at("i.CPI"), e.inclusive.cycles, e.inclusive.instructions, e.function + " i.CPI");
    expect_ratio(row.at("e.IPC"), e.exclusive.instructions, e.exclusive.cycles, e.function + " e.IPC");
    expect_ratio(row.at("i.IPC"), e.inclusive.instructions, e.inclusive.cycles, e.function + " i.IPC");
  }
  // The root has no counts of its own: its exclusive ratio is 0, not a division by zero.
  const json& root = rows.at("ratio_root");
  EXPECT_EQ(root.at("e.CPI").get<double>(), 0.0);
  expect_ratio(root.at("i.CPI"), (alpha + beta + gamma).cycles, (alpha + beta + gamma).instructions, "root i.CPI");
}

TEST_F(HwcRatios, CyclesAreAlsoShownAsTimeAtTheRecordedClockRate) {
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.cycles_time:name", "-functions"}, experiment_));
  const double seconds = static_cast<double>(truth::kGamma.cycles) / (truth::kClockMhz * 1e6);
  // Each of the three records is rounded to whole nanoseconds.
  EXPECT_NEAR(rows.at("ratio_gamma").at("e.cycles_time").get<double>(), seconds, 3 * 1e-9);
}

TEST_F(HwcRatios, SortingByCpiOrdersFunctionsByTheirRatio) {
  const json view = er_print_json({"-metrics", "e.CPI:name", "-sort", "e.CPI", "-functions"}, experiment_);
  std::vector<std::string> order;
  for (const json& row : view.at("rows"))
    if (row.at("name") != "<Total>") order.push_back(row.at("name"));
  // gamma 7.000..., final 6.994..., alpha 2.500..., beta 0.749..., root 0.
  const std::vector<std::string> expected{"ratio_gamma", "collector_final_counters", "ratio_alpha", "ratio_beta",
                                          "ratio_root"};
  EXPECT_EQ(order, expected) << view.dump();
}

TEST_F(HwcRatios, CallersCalleesAndMetricListShowTheRatios) {
  const json metrics = er_print_json({"-metric_list"}, experiment_);
  std::map<std::string, std::string> units;
  for (const json& m : metrics.at("metrics")) units[m.at("keyword")] = m.at("unit");
  EXPECT_EQ(units["CPI"], "ratio");
  EXPECT_EQ(units["IPC"], "ratio");
  EXPECT_EQ(units["cycles_time"], "sec.");
  const json view = er_print_json({"-metrics", "a.cycles:a.insts:a.CPI:name", "-callers-callees"}, experiment_);
  EXPECT_NE(view.dump().find("\"a.CPI\""), std::string::npos) << view.dump();
  // Text and CSV carry the columns too.
  for (const char* format : {"text", "csv"}) {
    const ProcessResult r = run_process({(bin_dir() / "er_print").string(), std::string("--format=") + format,
                                         "-metrics", "e.CPI:name", "-functions", experiment_.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("CPI"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("7.000"), std::string::npos) << r.out;  // ratio_gamma: 7000001 / 999983
  }
}

}  // namespace
}  // namespace lumen::test
