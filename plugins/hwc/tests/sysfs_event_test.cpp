// PMU events written PMU/EVENT/: the name's recognition, the format files'
// bit ranges, the event file's terms placed through them, and the whole
// reading of a PMU directory (a fake one, laid out as the kernel's).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "../analysis/hwc_metrics.h"
#include "../collector/sysfs_event.h"
#include "../counter_catalog.h"

namespace lumen::hwc {
namespace {

namespace fs = std::filesystem;

FormatField format(const std::string& text) {
  FormatField field;
  EXPECT_EQ(parse_format(text, &field), "") << text;
  return field;
}

TEST(HwcPmuEventName, PmuSlashEventSlashIsRecognised) {
  std::string pmu, event;
  ASSERT_TRUE(split_pmu_event_name("msr/tsc/", &pmu, &event));
  EXPECT_EQ(pmu, "msr");
  EXPECT_EQ(event, "tsc");
  ASSERT_TRUE(split_pmu_event_name("power/energy-pkg/", &pmu, &event));
  EXPECT_EQ(event, "energy-pkg");
  for (const char* other : {"cycles/0", "msr//", "/tsc/", "msr/tsc", "a/b/c/", "msr/tsc/0"})
    EXPECT_FALSE(split_pmu_event_name(other, nullptr, nullptr)) << other;
}

TEST(HwcPmuEventName, TheCounterListKeepsThemWholeBesideRegisterSuffixes) {
  std::vector<CounterRequest> counters;
  ASSERT_EQ(parse_counter_list("msr/tsc/,1000000,cycles/1,page-faults", &counters), "");
  ASSERT_EQ(counters.size(), 3u);
  EXPECT_EQ(counters[0].name, "msr/tsc/");
  EXPECT_EQ(counters[0].interval, 1000000u);
  EXPECT_EQ(counters[1].name, "cycles");
  std::vector<CounterRequest> bare;
  ASSERT_EQ(parse_counter_list("msr/tsc/", &bare), "");
  EXPECT_EQ(bare[0].interval, kRawDefaultInterval);
}

TEST(HwcPmuEventName, TheMetricKeywordDropsTheSlashes) {
  CounterMetrics m;
  ASSERT_EQ(counter_metrics("msr/tsc/,1000000", 2000, &m), "");
  ASSERT_EQ(m.metrics.size(), 1u);
  EXPECT_STREQ(m.metrics[0].keyword, "msr_tsc");
  EXPECT_EQ(m.metrics[0].unit, LUMEN_UNIT_COUNT);
}

TEST(HwcSysfsFormat, BitRangesOfEachConfigWord) {
  const FormatField whole = format("config:0-63\n");
  EXPECT_EQ(whole.word, 0);
  EXPECT_EQ(whole.bit_count, 64);
  const FormatField split = format("config1:0-7,32-35");
  EXPECT_EQ(split.word, 1);
  ASSERT_EQ(split.bit_count, 12);
  EXPECT_EQ(split.bits[7], 7);
  EXPECT_EQ(split.bits[8], 32);
  const FormatField one = format("config2:21");
  EXPECT_EQ(one.word, 2);
  ASSERT_EQ(one.bit_count, 1);
  EXPECT_EQ(one.bits[0], 21);
  FormatField refused;
  EXPECT_NE(parse_format("config3:0-7", &refused).find("config3"), std::string::npos);
  EXPECT_NE(parse_format("config:7-3", &refused).find("not a bit range"), std::string::npos);
  EXPECT_NE(parse_format("config:0-64", &refused).find("not a bit range"), std::string::npos);
  EXPECT_NE(parse_format("config", &refused).find("not WORD:BITS"), std::string::npos);
}

std::map<std::string, FormatField> core_like_formats() {
  return {{"event", format("config:0-7")},  {"umask", format("config:8-15")},   {"edge", format("config:18")},
          {"cmask", format("config:24-31")}, {"ldlat", format("config1:0-15")}, {"wide", format("config2:0-7,32-35")}};
}

TEST(HwcSysfsTerms, TermsArePlacedThroughTheirFormats) {
  uint64_t config[3] = {};
  ASSERT_EQ(apply_terms("event=0x3c,umask=0x01,edge,cmask=2,ldlat=3\n", core_like_formats(), config), "");
  EXPECT_EQ(config[0], 0x3cull | 0x01ull << 8 | 1ull << 18 | 2ull << 24);
  EXPECT_EQ(config[1], 3u);
  EXPECT_EQ(config[2], 0u);
  uint64_t scattered[3] = {};
  ASSERT_EQ(apply_terms("wide=0x1ab", core_like_formats(), scattered), "");
  EXPECT_EQ(scattered[2], 0xabull | 0x1ull << 32);
}

TEST(HwcSysfsTerms, WhatCannotBeEncodedIsNamed) {
  uint64_t config[3] = {};
  EXPECT_NE(apply_terms("event=0x3c,period=100", core_like_formats(), config).find("'period' has no format file"),
            std::string::npos);
  EXPECT_NE(apply_terms("event=0x3c,umask=?", core_like_formats(), config).find("needs a value of the user's"),
            std::string::npos);
  EXPECT_NE(apply_terms("event=0x1ff", core_like_formats(), config).find("wider than its 8 bits"), std::string::npos);
  EXPECT_NE(apply_terms("event=lots", core_like_formats(), config).find("no number"), std::string::npos);
}

TEST(HwcSysfsCpus, CpuListsOfCpumaskAndOnlineFiles) {
  std::vector<int> cpus;
  ASSERT_EQ(parse_cpu_list("0-3,8,10-11\n", &cpus), "");
  EXPECT_EQ(cpus, (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  ASSERT_EQ(parse_cpu_list("0", &cpus), "");
  EXPECT_EQ(cpus, (std::vector<int>{0}));
  EXPECT_NE(parse_cpu_list("3-1", &cpus).find("not a CPU list"), std::string::npos);
  EXPECT_NE(parse_cpu_list("", &cpus).find("names no CPU"), std::string::npos);
}

// A PMU directory as the kernel lays it out, under a temporary root.
class FakePmuRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/lumen_sysfs_XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    root_ = pattern;
    write("fake/type", "42\n");
    write("fake/events/loads", "event=0x12,umask=0x3\n");
    write("fake/events/loads.scale", "1e-3\n");
    write("fake/events/asks", "event=0x13,umask=?\n");
    write("fake/format/event", "config:0-7\n");
    write("fake/format/umask", "config:8-15\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& relative, const std::string& text) {
    fs::create_directories((root_ / relative).parent_path());
    std::ofstream(root_ / relative) << text;
  }
  fs::path root_;
};

TEST_F(FakePmuRoot, AnEventIsItsPmusTypeAndItsEncodedTerms) {
  SysfsEvent event;
  ASSERT_EQ(read_sysfs_event(root_.string(), "fake", "loads", &event), "");
  EXPECT_EQ(event.type, 42u);
  EXPECT_EQ(event.config[0], 0x312u);
  EXPECT_EQ(event.config[1], 0u);
}

TEST_F(FakePmuRoot, AnUncorePmusCpumaskSaysWhereToCount) {
  write("fake/cpumask", "0,18\n");
  std::vector<int> cpus;
  ASSERT_EQ(pmu_cpus(root_.string(), "fake", &cpus), "");
  EXPECT_EQ(cpus, (std::vector<int>{0, 18}));
}

TEST_F(FakePmuRoot, MissingPmusEventsAndUserTermsAreRefused) {
  SysfsEvent event;
  EXPECT_NE(read_sysfs_event(root_.string(), "nopmu", "loads", &event).find("the kernel has no PMU 'nopmu'"),
            std::string::npos);
  EXPECT_NE(read_sysfs_event(root_.string(), "fake", "stores", &event).find("the PMU fake has no event 'stores'"),
            std::string::npos);
  EXPECT_NE(read_sysfs_event(root_.string(), "fake", "../type", &event).find("has no event"), std::string::npos);
  EXPECT_NE(read_sysfs_event(root_.string(), "fake", "asks", &event).find("fake/asks/ (event=0x13,umask=?)"),
            std::string::npos);
}

}  // namespace
}  // namespace lumen::hwc
