// Derived metrics (a ratio of two metrics per row, such as CPI): how the
// registry declares them, what a row's value is, how specifications and
// cells treat them.
#include <gtest/gtest.h>

#include <iterator>

#include "metric_cells.h"
#include "metric_registry.h"
#include "metric_spec.h"

namespace lumen::test {
namespace {

using analysis::Flavor;
using analysis::MetricRegistry;
using analysis::Values;

constexpr uint32_t kAllFlavors = LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED;

const lumen_metric_def kCounters[] = {
    {"cycles", "CPU Cycles", LUMEN_UNIT_COUNT, kAllFlavors, nullptr},
    {"insts", "Instructions Completed", LUMEN_UNIT_COUNT, LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE, nullptr},
};
const lumen_derived_metric_def kRatios[] = {
    {"CPI", "CPI", "cycles", "insts", "cycles per instruction"},
    {"IPC", "IPC", "insts", "cycles", nullptr},
};

class DerivedMetric : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.add_plugin("hwc", kCounters, std::size(kCounters));
    ASSERT_EQ(registry_.add_derived("hwc", kRatios, std::size(kRatios)), "");
  }
  MetricRegistry registry_;
};

TEST_F(DerivedMetric, DeclaredAfterItsOperandsWithTheirCommonFlavors) {
  ASSERT_EQ(registry_.size(), 4u);
  const analysis::MetricDef& cpi = registry_.metrics()[2];
  EXPECT_EQ(cpi.keyword, "CPI");
  EXPECT_EQ(cpi.unit, LUMEN_UNIT_RATIO);
  EXPECT_EQ(cpi.flavors, LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE);
  EXPECT_EQ(cpi.ratio_of, std::make_pair(size_t{0}, size_t{1}));
  EXPECT_EQ(registry_.metrics()[3].ratio_of, std::make_pair(size_t{1}, size_t{0}));
  EXPECT_EQ(analysis::unit_word(cpi.unit), std::string("ratio"));
}

TEST_F(DerivedMetric, ValueIsTheRatioOfTheRowsOperands) {
  const Values row{3000, 1200, 0, 0};
  EXPECT_DOUBLE_EQ(registry_.value_of(0, row), 3000.0);
  EXPECT_DOUBLE_EQ(registry_.value_of(2, row), 2.5);
  EXPECT_DOUBLE_EQ(registry_.value_of(3, row), 0.4);
  EXPECT_DOUBLE_EQ(registry_.value_of(2, Values{3000, 0, 0, 0}), 0.0);  // no instruction: 0, not infinity
  EXPECT_DOUBLE_EQ(registry_.value_of(2, Values{}), 0.0);
}

TEST_F(DerivedMetric, CellsAndSortKeysUseTheRatio) {
  const Values exclusive{10, 4, 0, 0}, inclusive{90, 30, 0, 0}, total{100, 40, 0, 0};
  const analysis::MetricSelection selection = analysis::parse_metric_spec("e.CPI:i.%CPI:e%cycles", registry_);
  ASSERT_EQ(selection.columns.size(), 3u);
  EXPECT_FALSE(selection.columns[1].percent);  // a ratio has no share of <Total>
  EXPECT_EQ(analysis::row_values(selection, registry_, &exclusive, &inclusive, total),
            (std::vector<double>{2.5, 3.0, 10.0}));
  const analysis::SortKey key = analysis::parse_sort_spec("i.IPC", registry_);
  EXPECT_DOUBLE_EQ(analysis::sort_value_of(key, registry_, &exclusive, &inclusive), 1.0 / 3.0);
}

TEST_F(DerivedMetric, DefaultSpecShowsRatiosAsValuesOnly) {
  EXPECT_EQ(analysis::default_metric_spec(registry_), "e.%cycles:i.%cycles:e.insts:i.insts:e.CPI:i.CPI:e.IPC:i.IPC:name");
}

TEST_F(DerivedMetric, AttributedOnlyWhereBothOperandsHaveIt) {
  EXPECT_THROW(analysis::parse_metric_spec("a.CPI", registry_), analysis::SpecError);
}

TEST(DerivedMetricErrors, UnknownOperandOrTakenKeywordIsNamed) {
  MetricRegistry registry;
  registry.add_plugin("hwc", kCounters, 1);  // cycles only
  EXPECT_NE(registry.add_derived("hwc", kRatios, 1).find("'cycles' / 'insts'"), std::string::npos);
  MetricRegistry taken;
  taken.add_plugin("hwc", kCounters, std::size(kCounters));
  const lumen_derived_metric_def clash[] = {{"insts", "Again", "cycles", "insts", nullptr}};
  EXPECT_NE(taken.add_derived("hwc", clash, 1).find("'insts', a keyword already taken"), std::string::npos);
}

TEST(DerivedMetricErrors, APluginsRatiosAreAddedOnce) {
  MetricRegistry registry;
  registry.add_plugin("hwc", kCounters, std::size(kCounters));
  ASSERT_EQ(registry.add_derived("hwc", kRatios, std::size(kRatios)), "");
  ASSERT_EQ(registry.add_derived("hwc", kRatios, std::size(kRatios)), "");  // a second experiment of the session
  EXPECT_EQ(registry.size(), 4u);
}

}  // namespace
}  // namespace lumen::test
