// Two hwc experiments that collected different counters, in different
// orders, analysed in one er_print: each experiment's records reach the
// metrics of its own counters (configure declares them per experiment), a
// counter both collected is one metric holding both experiments' counts,
// and a counter only one collected holds that experiment's counts alone.
#include <gtest/gtest.h>

#include "counter_ratio_truth.h"
#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
namespace truth = hwc::truth;

class HwcConfigurations : public ::testing::Test {
 protected:
  void SetUp() override {
    first_ = dir_.path() / "cycles_insts.er";
    other_ = dir_.path() / "branches_cycles.er";
    ProcessResult r = run_process({LUMEN_HWC_COUNTER_EXPERIMENT, first_.string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = run_process({LUMEN_HWC_COUNTER_EXPERIMENT, other_.string(), "--other"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  TempDir dir_;
  fs::path first_, other_;
};

TEST_F(HwcConfigurations, EachExperimentsCountsReachItsOwnCountersMetrics) {
  // er_print ... -functions FIRST OTHER
  const auto rows = rows_by_name(
      er_print_json({"-metrics", "e.cycles:e.insts:e.branches:i.cycles:name", "-functions", first_.string()}, other_));
  struct Expected {
    truth::LeafCounts first;
    truth::OtherCounts other;
  };
  for (const Expected& e : {Expected{truth::kAlpha, truth::kOtherAlpha}, Expected{truth::kBeta, truth::kOtherBeta},
                            Expected{truth::kGamma, truth::kOtherGamma}}) {
    ASSERT_TRUE(rows.count(e.first.function)) << e.first.function;
    const auto& row = rows.at(e.first.function);
    EXPECT_EQ(row.at("e.cycles").get<double>(), static_cast<double>(e.first.cycles + e.other.cycles))
        << e.first.function;
    EXPECT_EQ(row.at("e.insts").get<double>(), static_cast<double>(e.first.instructions)) << e.first.function;
    EXPECT_EQ(row.at("e.branches").get<double>(), static_cast<double>(e.other.branches)) << e.first.function;
  }
  const double all_cycles = static_cast<double>(truth::kAlpha.cycles + truth::kBeta.cycles + truth::kGamma.cycles +
                                                truth::kFinal.cycles + truth::kOtherAlpha.cycles +
                                                truth::kOtherBeta.cycles + truth::kOtherGamma.cycles);
  EXPECT_EQ(rows.at("<Total>").at("e.cycles").get<double>(), all_cycles);
  EXPECT_EQ(rows.at("<Total>").at("e.branches").get<double>(),
            static_cast<double>(truth::kOtherAlpha.branches + truth::kOtherBeta.branches +
                                truth::kOtherGamma.branches));
  // ratio_root calls alpha (and beta through it) and gamma: its inclusive
  // cycles are everything but the final counts.
  EXPECT_EQ(rows.at("ratio_root").at("i.cycles").get<double>(), all_cycles - static_cast<double>(truth::kFinal.cycles));
}

TEST_F(HwcConfigurations, TheOtherOrderAloneStillMapsEachCounter) {
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.branches:e.cycles:name", "-functions"}, other_));
  EXPECT_EQ(rows.at("ratio_gamma").at("e.branches").get<double>(), static_cast<double>(truth::kOtherGamma.branches));
  EXPECT_EQ(rows.at("ratio_gamma").at("e.cycles").get<double>(), static_cast<double>(truth::kOtherGamma.cycles));
}

}  // namespace
}  // namespace lumen::test
