// -allocs and -leaks of Java experiments, end to end: JavaAllocations
// (arrays of longs and small objects of its own class, each method
// counting its objects and measuring its bytes, the last 4096 of each kept
// reachable to the end by static arrays, the others garbage) under collect
// with Java allocation sampling every 32 KiB. The estimates are compared
// with that truth within what the sampling interval allows (the tolerance
// is java_allocations_test.cpp's: five standard deviations of an estimate
// of B bytes, at most sqrt(B * interval)).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "java_test_run.h"

namespace lumen::test {
namespace {

constexpr double kInterval = 32 * 1024;
constexpr const char* kBuffers = "JavaAllocations.allocateBuffers(int)";
constexpr const char* kPoints = "JavaAllocations.allocatePoints(int)";

// er_print ARGS, for its text and CSV (er_print_json gives JSON).
ProcessResult er_print(const std::vector<std::string>& args) {
  std::vector<std::string> argv{(bin_dir() / "er_print").string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process(argv);
}

double tolerance(double bytes) { return 5 * std::sqrt(bytes * kInterval); }

std::string profile(const TempDir& dir, bool census) {
  const auto path = dir.path() / "java-heap.yaml";
  std::ofstream(path) << "description: Java allocations sampled every 32 KiB\n"
                         "plugins:\n  java:\n    heap: on\n    heap_interval: 32768\n"
                      << "    heap_census: " << (census ? "on" : "off") << "\n";
  return path.string();
}

// The row of a table whose title starts with `title` for objects of
// `klass` allocated in `method` (the stack's leaf); null when none.
nlohmann::json site_row(const nlohmann::json& view, const std::string& title, const std::string& klass,
                        const std::string& method) {
  for (const auto& table : view.at("tables")) {
    if (table.at("title").get<std::string>().rfind(title, 0) != 0) continue;
    for (const auto& row : table.at("rows"))
      if (row.at("name") == klass && !row.at("stack").empty() && row.at("stack")[0].at("function") == method)
        return row;
  }
  return nullptr;
}

double site_value(const nlohmann::json& view, const std::string& title, const std::string& klass,
                  const std::string& method, const char* column) {
  const nlohmann::json row = site_row(view, title, klass, method);
  return row.is_null() ? 0.0 : row.at("values").at(column).get<double>();
}

class JavaHeapViews : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    run_ = new JavaRun(collect_java_program(*dir_, {"-p", "off", "--profile", profile(*dir_, true)},
                                            {JAVA_TEST_JAVA}, {"JavaAllocations"}));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete dir_;
  }
  static double truth(const char* method, const char* what) { return run_->truth.at(method).at(what).get<double>(); }
  static TempDir* dir_;
  static JavaRun* run_;
};
TempDir* JavaHeapViews::dir_ = nullptr;
JavaRun* JavaHeapViews::run_ = nullptr;

TEST_F(JavaHeapViews, AllocsShowsEachSiteAndClassWithinTheSamplingTolerance) {
  ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
  const nlohmann::json allocs = er_print_json({"-allocs"}, run_->experiment);
  EXPECT_FALSE(allocs.contains("sections")) << "one plugin's data: the view as it always was";
  EXPECT_GT(allocs.at("summary").at("samples").get<double>(), 0);
  EXPECT_EQ(allocs.at("summary").at("interval").get<double>(), kInterval);
  const std::string sites = "Java allocations by allocation site and class (sampled estimates)";
  for (const auto& [method, klass] : {std::pair{kBuffers, "long[]"}, std::pair{kPoints, "JavaAllocations$Point"}}) {
    const double bytes = truth(method, "bytes"), objects = truth(method, "objects");
    const nlohmann::json row = site_row(allocs, sites, klass, method);
    ASSERT_FALSE(row.is_null()) << method << " " << allocs.dump();
    EXPECT_NEAR(row.at("values").at("bytes").get<double>(), bytes, tolerance(bytes)) << method;
    EXPECT_NEAR(row.at("values").at("objects").get<double>(), objects, tolerance(bytes) / (bytes / objects)) << method;
    // The stack is the Java representation's: the method under main.
    EXPECT_EQ(row.at("stack")[1].at("function"), "JavaAllocations.main(java.lang.String[])") << row.dump();
  }
  // The classes allocated, as a table of their own.
  bool classes = false;
  for (const auto& table : allocs.at("tables"))
    if (table.at("title") == "Java allocations by class (sampled estimates)")
      for (const auto& row : table.at("rows")) classes |= row.at("name") == "JavaAllocations$Point";
  EXPECT_TRUE(classes) << allocs.dump();
  // CSV: the same rows, the stack in a column.
  const ProcessResult csv = er_print({"--format=csv", "-allocs", run_->experiment.string()});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("table,objects,bytes,samples,name,load_object,stack"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find(",long[],,JavaAllocations.allocateBuffers(int);JavaAllocations.main(java.lang.String[])"),
            std::string::npos)
      << csv.out;
}

TEST_F(JavaHeapViews, LeaksFindTheObjectsKeptReachableAndNotThoseDropped) {
  ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
  const nlohmann::json leaks = er_print_json({"-leaks"}, run_->experiment);
  const std::string live = "Java objects live at the JVM's end by allocation site and class";
  EXPECT_EQ(leaks.at("summary").count("unknown_samples"), 0u) << leaks.dump();
  // 4096 of 8000 arrays kept: the estimate is near 4096, far from 8000.
  const double buffer_size = truth(kBuffers, "bytes") / truth(kBuffers, "objects");
  const double kept_buffers = truth(kBuffers, "retained");
  ASSERT_LT(kept_buffers, truth(kBuffers, "objects"));
  const double buffer_tolerance = tolerance(kept_buffers * buffer_size) / buffer_size;
  ASSERT_LT(kept_buffers + buffer_tolerance, truth(kBuffers, "objects") - buffer_tolerance) << "distinguishable";
  EXPECT_NEAR(site_value(leaks, live, "long[]", kBuffers, "objects"), kept_buffers, buffer_tolerance) << leaks.dump();
  EXPECT_NEAR(site_value(leaks, live, "long[]", kBuffers, "bytes"), kept_buffers * buffer_size,
              tolerance(kept_buffers * buffer_size));
  // 4096 of 2.8 million points kept: the estimate is nowhere near the
  // millions dropped.
  const double point_size = truth(kPoints, "bytes") / truth(kPoints, "objects");
  const double kept_points = truth(kPoints, "retained");
  const double point_tolerance = tolerance(kept_points * point_size) / point_size;
  ASSERT_LT(kept_points + point_tolerance, truth(kPoints, "objects") / 10);
  EXPECT_NEAR(site_value(leaks, live, "JavaAllocations$Point", kPoints, "objects"), kept_points, point_tolerance);
  // What the census found collected: most of the samples.
  EXPECT_GT(leaks.at("summary").at("collected_samples").get<double>(), leaks.at("summary").at("live_samples").get<double>());
  // CSV of the same view.
  const ProcessResult csv = er_print({"--format=csv", "-leaks", run_->experiment.string()});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_NE(csv.out.find("live_samples,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find("Java objects live at the JVM's end by allocation site and class (sampled estimates),"),
            std::string::npos)
      << csv.out;
}

// Without the census, -leaks says that Java objects are garbage-collected
// and shows the allocation sites instead, titled as such.
TEST(JavaLeaks, WithoutACensusLeaksSaySoAndShowAllocationSites) {
  TempDir dir;
  const JavaRun r =
      collect_java_program(dir, {"-p", "off", "--profile", profile(dir, false)}, {JAVA_TEST_JAVA}, {"JavaAllocations"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  const nlohmann::json leaks = er_print_json({"-leaks"}, r.experiment);
  EXPECT_EQ(leaks.at("summary").count("live_samples"), 0u) << leaks.dump();
  EXPECT_EQ(leaks.at("summary").at("unknown_samples"), leaks.at("summary").at("samples"));
  ASSERT_EQ(leaks.at("tables").size(), 1u) << leaks.dump();
  const std::string title = leaks.at("tables")[0].at("title");
  EXPECT_EQ(title.rfind("Java objects are garbage-collected", 0), 0u) << title;
  EXPECT_NE(title.find("not of leaks"), std::string::npos) << title;
  EXPECT_GT(site_value(leaks, "Java objects are garbage-collected", "long[]", kBuffers, "samples"), 0.0);
}

// A Java experiment that sampled no allocations says so, with no table
// that would read as "nothing allocated" or "no leaks".
TEST(JavaLeaks, AJavaExperimentWithoutSamplingSaysHowToSample) {
  TempDir dir;
  const JavaRun r = collect_java_program(dir, {"-j", "on", "-p", "on"}, {JAVA_TEST_JAVA}, {"JavaAllocations"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  for (const char* view : {"-allocs", "-leaks"}) {
    const ProcessResult text = er_print({view, r.experiment.string()});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("none: collect -j heap samples Java allocations"), std::string::npos) << text.out;
    EXPECT_EQ(text.err.find("so the view is empty"), std::string::npos) << text.err;
    const nlohmann::json json = er_print_json({view}, r.experiment);
    EXPECT_TRUE(json.at("tables").empty()) << json.dump();
  }
}

// A JVM traced with -H on and sampled with -j heap: each view shows both
// sections, the native heap plugin's as it shows it alone, each titled by
// its data. (Each er_print of this experiment symbolizes libjvm's stacks:
// text and CSV are read of one view.)
TEST(JavaLeaks, NativeHeapTracingAndJavaSamplingShowOneSectionEach) {
  TempDir dir;
  const JavaRun r = collect_java_program(dir, {"-H", "on", "-p", "off", "-j", "heap"}, {JAVA_TEST_JAVA},
                                         {"JavaAllocations"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  for (const std::string view : {"-allocs", "-leaks"}) {
    const nlohmann::json json = er_print_json({view}, r.experiment);
    ASSERT_EQ(json.at("sections").size(), 2u) << json.dump();
    const nlohmann::json& heap = json.at("sections")[0];
    const nlohmann::json& java = json.at("sections")[1];
    EXPECT_EQ(heap.at("data"), "heap");
    EXPECT_EQ(java.at("data"), "java");
    EXPECT_EQ(heap.at("title").get<std::string>().rfind(view + " of heap data (heaptrace): ", 0), 0u) << heap.dump();
    EXPECT_EQ(java.at("title").get<std::string>().rfind(view + " of java data (JAVA_CLASSES): ", 0), 0u);
    // The native section is the heap plugin's view: traced malloc, exact.
    EXPECT_GT(heap.at("summary").at(view == "-allocs" ? "allocations" : "leaks").get<double>(), 0);
    EXPECT_GT(java.at("summary").at("samples").get<double>(), 0);
  }
  const ProcessResult text = er_print({"-limit", "1", "-allocs", r.experiment.string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.rfind("-allocs of heap data (heaptrace): ", 0), 0u) << text.out;
  EXPECT_NE(text.out.find("\n-allocs of java data (JAVA_CLASSES): "), std::string::npos) << text.out;
  const ProcessResult csv = er_print({"--format=csv", "-limit", "1", "-allocs", r.experiment.string()});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_EQ(csv.out.rfind("data,key,value\nheap,allocations,", 0), 0u) << csv.out;
  EXPECT_NE(csv.out.find("data,key,value\njava,samples,"), std::string::npos) << csv.out;
}

}  // namespace
}  // namespace lumen::test
