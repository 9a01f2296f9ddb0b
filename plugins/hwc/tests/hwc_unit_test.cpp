// The hwc plugin's deterministic parts: the -h parser and its aliases, the
// metrics an experiment's counters give, and the CPI/IPC declarations.
#include <gtest/gtest.h>

#include "../analysis/hwc_metrics.h"
#include "../counter_catalog.h"

namespace lumen::hwc {
namespace {

std::vector<CounterRequest> parsed(const std::string& text) {
  std::vector<CounterRequest> counters;
  const std::string problem = parse_counter_list(text, &counters);
  EXPECT_EQ(problem, "") << text;
  return counters;
}

std::string refusal(const std::string& text) {
  std::vector<CounterRequest> counters;
  return parse_counter_list(text, &counters);
}

TEST(HwcCounterList, CounterAloneTakesItsDefault) {
  const auto counters = parsed("cycles");
  ASSERT_EQ(counters.size(), 1u);
  EXPECT_EQ(counters[0].name, "cycles");
  EXPECT_EQ(counters[0].interval, find_named_counter("cycles")->default_interval);
}

TEST(HwcCounterList, OnHiLoAndNumbers) {
  const uint64_t pf = find_named_counter("page-faults")->default_interval;
  const uint64_t tc = find_named_counter("task-clock")->default_interval;
  const auto counters = parsed("page-faults,hi,task-clock,lo,insts,on,dcm,12345");
  ASSERT_EQ(counters.size(), 4u);
  EXPECT_EQ(counters[0].interval, pf / 10);
  EXPECT_EQ(counters[1].interval, tc * 10);
  EXPECT_EQ(counters[2].interval, find_named_counter("insts")->default_interval);
  EXPECT_EQ(counters[3].name, "dcm");
  EXPECT_EQ(counters[3].interval, 12345u);
}

TEST(HwcCounterList, IntervalsAreOptionalBetweenCounters) {
  const auto counters = parsed("cycles,insts,100003");
  ASSERT_EQ(counters.size(), 2u);
  EXPECT_EQ(counters[0].interval, find_named_counter("cycles")->default_interval);
  EXPECT_EQ(counters[1].interval, 100003u);
}

TEST(HwcCounterList, RawNamesTakeTheRawDefaultAndRegisterSuffixesAreDropped) {
  const auto counters = parsed("INST_RETIRED:ANY_P,cycles/0,on");
  ASSERT_EQ(counters.size(), 2u);
  EXPECT_EQ(counters[0].name, "INST_RETIRED:ANY_P");
  EXPECT_EQ(counters[0].interval, kRawDefaultInterval);
  EXPECT_EQ(counters[1].name, "cycles");
}

TEST(HwcCounterList, MistakesAreNamed) {
  EXPECT_NE(refusal("on").find("'on' is an interval"), std::string::npos);
  EXPECT_NE(refusal("cycles,,insts").find("empty counter name"), std::string::npos);
  EXPECT_NE(refusal("cycles,0").find("'0' of cycles is not a positive number"), std::string::npos);
  EXPECT_NE(refusal("cycles,99999999999999999999999").find("not a positive number"), std::string::npos);
  EXPECT_NE(refusal("cycles,insts,cycles").find("cycles is named twice"), std::string::npos);
  EXPECT_NE(refusal("cycles/x").find("register suffix"), std::string::npos);
  EXPECT_NE(refusal("a,b,c,d,e,f,g").find("at most 6 counters"), std::string::npos);
}

TEST(HwcCatalog, EveryOracleAliasAndSoftwareEventIsKnown) {
  for (const char* name : {"cycles", "insts", "loads", "stores", "dcm", "icm", "l2m", "l3m", "brm", "task-clock",
                           "page-faults", "context-switches", "cpu-migrations", "minor-faults", "major-faults"}) {
    const NamedCounter* c = find_named_counter(name);
    ASSERT_NE(c, nullptr) << name;
    EXPECT_GT(c->default_interval, 0u) << name;
  }
  EXPECT_TRUE(find_named_counter("cycles")->flags & kHardware);
  EXPECT_FALSE(find_named_counter("page-faults")->flags & kHardware);
}

TEST(HwcMetrics, OneMetricPerCounterAndCyclesAlsoAsTime) {
  CounterMetrics m;
  ASSERT_EQ(counter_metrics("cycles,insts,task-clock,hi,INST_RETIRED:ANY_P", 2000, &m), "");
  ASSERT_EQ(m.metrics.size(), 5u);
  EXPECT_STREQ(m.metrics[0].keyword, "cycles");
  EXPECT_STREQ(m.metrics[1].keyword, "cycles_time");
  EXPECT_EQ(m.metrics[1].unit, LUMEN_UNIT_NANOSECONDS);
  EXPECT_STREQ(m.metrics[2].keyword, "insts");
  EXPECT_EQ(m.metrics[2].unit, LUMEN_UNIT_COUNT);
  EXPECT_STREQ(m.metrics[3].keyword, "task-clock");
  EXPECT_EQ(m.metrics[3].unit, LUMEN_UNIT_NANOSECONDS);
  EXPECT_STREQ(m.metrics[4].keyword, "INST_RETIRED_ANY_P");
  EXPECT_EQ(m.count_metric, (std::vector<int>{0, 2, 3, 4}));
  EXPECT_EQ(m.time_metric, (std::vector<int>{1, -1, -1, -1}));
}

TEST(HwcMetrics, NoTimeWithoutAClockRate) {
  CounterMetrics m;
  ASSERT_EQ(counter_metrics("cycles", 0, &m), "");
  EXPECT_EQ(m.metrics.size(), 1u);
}

TEST(HwcMetrics, CyclesAndInstructionsTogetherDeclareCpiAndIpc) {
  CounterMetrics m;
  ASSERT_EQ(counter_metrics("page-faults,insts,cycles", 2000, &m), "");
  ASSERT_EQ(m.derived.size(), 2u);
  EXPECT_STREQ(m.derived[0].keyword, "CPI");
  EXPECT_STREQ(m.derived[0].numerator, "cycles");
  EXPECT_STREQ(m.derived[0].denominator, "insts");
  EXPECT_STREQ(m.derived[1].keyword, "IPC");
  EXPECT_STREQ(m.derived[1].numerator, "insts");
  EXPECT_STREQ(m.derived[1].denominator, "cycles");
}

TEST(HwcMetrics, NoRatiosWithoutBothCounters) {
  CounterMetrics m;
  ASSERT_EQ(counter_metrics("cycles,task-clock", 2000, &m), "");
  EXPECT_TRUE(m.derived.empty());
  ASSERT_EQ(counter_metrics("insts", 2000, &m), "");
  EXPECT_TRUE(m.derived.empty());
}

}  // namespace
}  // namespace lumen::hwc
