// Java allocations end to end: JavaAllocations (one method allocating
// arrays of longs, one small objects of its own class, one nothing, each
// counting its objects and measuring its thread's allocated bytes with
// ThreadMXBean) under collect with Java allocation sampling; er_print's
// sampled estimates per method (user view mode) and per class (-jallocs)
// compared with that truth.
//
// The tolerance. HotSpot samples a thread's allocations as a Poisson
// process over the bytes it allocates, gaps of mean I (the sampling
// interval): an object of s bytes is sampled with probability
// p = 1 - exp(-s/I), and er_print counts each sample as s/p bytes. For
// B bytes of such objects the number of samples K is binomial (B/s
// objects, p each) and the estimate K*s/p has variance B*s*(1-p)/p, which
// is at most B*I (with x = s/I, s*(1-p)/p = I*x/(e^x - 1) <= I). Its
// standard deviation is thus at most sqrt(B*I) = B/sqrt(B/I): the truth over
// the root of the number of samples one expects. Five of them are exceeded
// by chance less than once in a million runs. The object count's estimate
// is the byte estimate over s, and so is its deviation.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "java_test_run.h"

namespace lumen::test {
namespace {

constexpr double kInterval = 32 * 1024;  // bytes, the profile's heap_interval

double allocation_tolerance(double bytes, double interval) { return 5 * std::sqrt(bytes * interval); }

JavaRun collect_allocations(const TempDir& dir, const std::vector<std::string>& collect_args) {
  return collect_java_program(dir, collect_args, {JAVA_TEST_JAVA}, {"JavaAllocations"});
}

// Java allocation sampling alone, every 32 KiB, from a profile.
std::string sampling_profile(const TempDir& dir) {
  const auto path = dir.path() / "java-heap.yaml";
  std::ofstream(path) << "description: Java allocations sampled every 32 KiB\n"
                         "plugins:\n  java:\n    heap: on\n    heap_interval: 32768\n";
  return path.string();
}

nlohmann::json class_row(const nlohmann::json& view, const std::string& klass) {
  for (const auto& table : view.at("tables"))
    for (const auto& row : table.at("rows"))
      if (row.at("name") == klass) return row;
  return nullptr;
}

TEST(JavaAllocations, SampledEstimatesPerMethodAndClassMatchWhatTheProgramAllocated) {
  TempDir dir;
  const JavaRun r = collect_allocations(dir, {"--profile", sampling_profile(dir)});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_NE(r.run.out.find("allocations done"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(r.experiment / "heaptrace")) << "no native heap tracing";
  const auto rows = rows_by_name(er_print_json(
      {"-viewmode", "user", "-metrics", "e.jallocbytes:i.jallocbytes:e.jalloccnt:i.jallocsamples:name",
       "-functions"},
      r.experiment));
  for (const std::string method : {"JavaAllocations.allocateBuffers(int)", "JavaAllocations.allocatePoints(int)"}) {
    const double bytes = r.truth.at(method).at("bytes").get<double>();
    const double objects = r.truth.at(method).at("objects").get<double>();
    const double object_size = bytes / objects;
    const double tolerance = allocation_tolerance(bytes, kInterval);
    ASSERT_TRUE(rows.count(method)) << method;
    // The allocations are the method's own: exclusive and inclusive alike.
    EXPECT_NEAR(row_value(rows, method, "e.jallocbytes"), bytes, tolerance) << method;
    EXPECT_NEAR(row_value(rows, method, "i.jallocbytes"), bytes, tolerance) << method;
    EXPECT_NEAR(row_value(rows, method, "e.jalloccnt"), objects, tolerance / object_size) << method;
    // About B*p/s samples: the estimate rests on that many.
    const double expected_samples = objects * -std::expm1(-object_size / kInterval);
    EXPECT_NEAR(row_value(rows, method, "i.jallocsamples"), expected_samples, 5 * std::sqrt(expected_samples))
        << method;
  }
  // A method that allocates nothing shows nothing.
  ASSERT_EQ(r.truth.at("JavaAllocations.computeOnly(long)").at("bytes").get<double>(), 0.0);
  EXPECT_EQ(row_value(rows, "JavaAllocations.computeOnly(long)", "i.jallocbytes"), 0.0);
  EXPECT_EQ(row_value(rows, "JavaAllocations.computeOnly(long)", "i.jallocsamples"), 0.0);
  // Both methods are called from main, which holds them inclusively.
  const double both = r.truth.at("JavaAllocations.allocateBuffers(int)").at("bytes").get<double>() +
                      r.truth.at("JavaAllocations.allocatePoints(int)").at("bytes").get<double>();
  EXPECT_NEAR(row_value(rows, "JavaAllocations.main(java.lang.String[])", "i.jallocbytes"), both,
              allocation_tolerance(both, kInterval));

  // By class. JavaAllocations$Point is allocated by allocatePoints alone;
  // long[] by allocateBuffers and, a little, by the JVM's own start-up
  // (each of its samples counting about one interval), allowed for by a
  // megabyte more.
  const nlohmann::json classes = er_print_json({"-jallocs"}, r.experiment);
  const nlohmann::json point = class_row(classes, "JavaAllocations$Point");
  ASSERT_FALSE(point.is_null()) << classes.dump();
  const double point_bytes = r.truth.at("JavaAllocations.allocatePoints(int)").at("bytes").get<double>();
  EXPECT_NEAR(point.at("values").at("bytes").get<double>(), point_bytes, allocation_tolerance(point_bytes, kInterval));
  const nlohmann::json longs = class_row(classes, "long[]");
  ASSERT_FALSE(longs.is_null()) << classes.dump();
  const double long_bytes = r.truth.at("JavaAllocations.allocateBuffers(int)").at("bytes").get<double>();
  const double long_estimate = longs.at("values").at("bytes").get<double>();
  EXPECT_GT(long_estimate, long_bytes - allocation_tolerance(long_bytes, kInterval));
  EXPECT_LT(long_estimate, long_bytes + allocation_tolerance(long_bytes, kInterval) + (1 << 20));
}

TEST(JavaAllocations, JHeapSamplesJavaAllocationsWithoutNativeHeapTracing) {
  TempDir dir;
  const JavaRun r = collect_allocations(dir, {"-j", "heap", "-p", "off"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_FALSE(std::filesystem::exists(r.experiment / "heaptrace"));
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.jallocbytes:name", "-functions"}, r.experiment));
  EXPECT_GT(row_value(rows, "JavaAllocations.allocatePoints(int)", "i.jallocbytes"), 0.0);
  EXPECT_EQ(row_value(rows, "JavaAllocations.computeOnly(long)", "i.jallocbytes"), 0.0);
  // The header says at what interval (the JVM's default, 512 KiB).
  const nlohmann::json classes = er_print_json({"-jallocs"}, r.experiment);
  EXPECT_NE(classes.dump().find("524288"), std::string::npos) << classes.dump();
}

TEST(JavaAllocations, NoAllocationMetricsWithoutJHeap) {
  TempDir dir;
  const JavaRun r = collect_allocations(dir, {"-j", "on", "-p", "on"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  const nlohmann::json list = er_print_json({"-functions"}, r.experiment);
  EXPECT_EQ(list.dump().find("jalloc"), std::string::npos) << list.dump();
}

// A traced native call under a JNI method: heap tracing (-H on) records
// each malloc with the Java methods above the C code that called it. The
// calls are traced, so the count is exact.
TEST(JavaAllocations, MallocInAJniMethodIsTheJavaMethodsInUserMode) {
  TempDir dir;
  const JavaRun r = collect_java_program(dir, {"-H", "on", "-p", "off", "-j", "on"}, {JAVA_TEST_JAVA},
                                         {"JavaAllocations", "1", JAVA_TEST_NATIVE_MALLOC});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  const double mallocs = r.truth.at("JavaAllocations.mallocInC(int)").at("mallocs").get<double>();
  ASSERT_GT(mallocs, 0.0);
  const auto user = rows_by_name(er_print_json(
      {"-viewmode", "user", "-metrics", "e.heapalloccnt:i.heapalloccnt:name", "-functions"}, r.experiment));
  EXPECT_EQ(row_value(user, "JavaAllocations.mallocInC(int)", "e.heapalloccnt"), mallocs);
  EXPECT_GE(row_value(user, "JavaAllocations.main(java.lang.String[])", "i.heapalloccnt"), mallocs);
  // Expert mode keeps the C code, under the Java method that called it
  // (whose first call also links it: the JVM looks the C function up, in
  // Java and with a malloc or so, under the method's frame).
  const auto expert = rows_by_name(er_print_json(
      {"-viewmode", "expert", "-metrics", "i.heapalloccnt:name", "-functions"}, r.experiment));
  EXPECT_EQ(row_value(expert, "malloc_in_c", "i.heapalloccnt"), mallocs);
  EXPECT_GE(row_value(expert, "JavaAllocations.mallocInC(int)", "i.heapalloccnt"), mallocs);
}

}  // namespace
}  // namespace lumen::test
