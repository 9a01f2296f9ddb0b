// Sampled Java allocations as estimates: each sample scaled by the chance
// that an object of its size was sampled, and summed without rounding bias.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../analysis/java_allocations.h"
#include "../java_record.h"

namespace lumen::java {
namespace {

TEST(JavaAllocationEstimate, SmallObjectsStandForAboutOneInterval) {
  const AllocationEstimate e = estimate_allocation(24, 524288);
  EXPECT_NEAR(e.bytes, 524288.0, 524288.0 * 1e-4);
  EXPECT_NEAR(e.objects, 524288.0 / 24, 1.0);
}

TEST(JavaAllocationEstimate, ObjectsFarLargerThanTheIntervalStandForThemselves) {
  const AllocationEstimate e = estimate_allocation(64 << 20, 32768);
  EXPECT_DOUBLE_EQ(e.bytes, double(64 << 20));
  EXPECT_DOUBLE_EQ(e.objects, 1.0);
}

TEST(JavaAllocationEstimate, IntervalZeroSamplesEveryObject) {
  const AllocationEstimate e = estimate_allocation(8016, 0);
  EXPECT_EQ(e.bytes, 8016.0);
  EXPECT_EQ(e.objects, 1.0);
}

// What decode_allocation emits, summed.
struct Sums {
  double bytes = 0, objects = 0, samples = 0;
};

void add_event(void* context, const lumen_event* event) {
  auto* sums = static_cast<Sums*>(context);
  sums->bytes += double(event->values[kAllocatedBytes]);
  sums->objects += double(event->values[kAllocatedObjects]);
  sums->samples += double(event->values[kAllocationSamples]);
}

TEST(JavaAllocationEstimate, WholeNumberEventsSumToTheEstimateWithoutRoundingBias) {
  // long[1000] at a 32 KiB interval: p = 0.217, each sample 4.6 objects.
  constexpr uint64_t kSize = 8016;
  constexpr uint32_t kInterval = 32768;
  Sums sums;
  lumen_event_sink sink{};
  sink.size = sizeof sink;
  sink.context = &sums;
  sink.emit = add_event;
  const char klass[] = "long[]";
  std::vector<char> record(sizeof(JavaAllocation) + sizeof klass - 1);
  constexpr int kSamples = 20000;
  for (int i = 0; i < kSamples; ++i) {
    const JavaAllocation sample{uint64_t(1000 + 7 * i), uint64_t(i % 3), kSize, kInterval, 42, sizeof klass - 1};
    std::memcpy(record.data(), &sample, sizeof sample);
    std::memcpy(record.data() + sizeof sample, klass, sizeof klass - 1);
    char error[128];
    ASSERT_EQ(decode_allocation(kAllocationRecord, record.data(), uint16_t(record.size()), &sink, error, sizeof error),
              0)
        << error;
  }
  const AllocationEstimate each = estimate_allocation(kSize, kInterval);
  EXPECT_EQ(sums.samples, kSamples);
  // Each event is off by less than one, either way, with mean 0: the sum's
  // error is that of kSamples draws of variance at most 1/4.
  EXPECT_NEAR(sums.objects, each.objects * kSamples, 5 * std::sqrt(kSamples / 4.0));
  EXPECT_NEAR(sums.bytes, each.bytes * kSamples, 5 * std::sqrt(kSamples / 4.0));
}

TEST(JavaAllocationEstimate, ARecordCutShortIsRefused) {
  lumen_event_sink sink{};
  sink.size = sizeof sink;
  const JavaAllocation sample{1, 2, 24, 1024, 3, 50};  // names 50 bytes it does not hold
  char error[128] = {};
  EXPECT_NE(decode_allocation(kAllocationRecord, &sample, sizeof sample, &sink, error, sizeof error), 0);
  EXPECT_NE(std::string(error).find("not one"), std::string::npos);
}

// A tracked sample (its tag first, for the census at the JVM's end) reads
// as the same allocation; one too short for its tag is refused.
TEST(JavaAllocationEstimate, ATrackedRecordReadsAsItsAllocation) {
  const char klass[] = "long[]";
  const uint64_t tag = 77;
  const JavaAllocation sample{5, 6, 8016, 32768, 9, sizeof klass - 1};
  std::vector<char> record(sizeof tag + sizeof sample + sizeof klass - 1);
  std::memcpy(record.data(), &tag, sizeof tag);
  std::memcpy(record.data() + sizeof tag, &sample, sizeof sample);
  std::memcpy(record.data() + sizeof tag + sizeof sample, klass, sizeof klass - 1);
  JavaAllocation read{};
  std::string name;
  uint64_t read_tag = 0;
  ASSERT_TRUE(read_allocation_record(kTrackedAllocationRecord, record.data(), uint16_t(record.size()), read, name,
                                     read_tag));
  EXPECT_EQ(read_tag, tag);
  EXPECT_EQ(read.size, 8016u);
  EXPECT_EQ(name, "long[]");
  EXPECT_FALSE(read_allocation_record(kTrackedAllocationRecord, record.data(), 4, read, name, read_tag));
  EXPECT_FALSE(read_allocation_record(kMethodRecord, record.data(), uint16_t(record.size()), read, name, read_tag));
}

}  // namespace
}  // namespace lumen::java
