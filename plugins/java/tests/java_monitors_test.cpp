// Java monitors as sync waits end to end: JavaMonitors (a contended
// synchronized block whose holder keeps the lock a known time, and an
// Object.wait), which times its own waits with System.nanoTime, under
// collect -s; er_print's Sync Wait Time and Count of the waiting methods,
// and -syncobjects' monitor classes, compared with that truth. The waits
// are traced, so counts are equal and times differ only by the moments
// the JVM's events and the program's clock reads are apart.
#include <gtest/gtest.h>

#include "java_test_run.h"

namespace lumen::test {
namespace {

JavaRun collect_monitors(const TempDir& dir, const std::vector<std::string>& collect_args) {
  return collect_java_program(dir, collect_args, {JAVA_TEST_JAVA}, {"JavaMonitors"});
}

double value(const std::map<std::string, nlohmann::json>& rows, const std::string& name, const char* metric) {
  return row_value(rows, name, metric);
}

// The -syncobjects row of a monitor's class, or null.
nlohmann::json monitor_row(const nlohmann::json& view, const std::string& klass) {
  for (const auto& table : view.at("tables"))
    for (const auto& row : table.at("rows"))
      if (row.at("name") == "monitor " + klass) return row;
  return nullptr;
}

// A millisecond a wait for the JVM's event and clock reads, and 2 %.
double traced_tolerance(double truth, double count) { return 0.001 * count + 0.02 * truth; }

TEST(JavaMonitors, ContendedMonitorsAndWaitsAreSyncWaitsOfTheirMethods) {
  TempDir dir;
  const JavaRun r = collect_monitors(dir, {"-j", "on", "-s", "on", "-p", "off"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_NE(r.run.out.find("monitors done"), std::string::npos);
  const auto rows =
      rows_by_name(er_print_json({"-metrics", "i.sync:i.syncn:name", "-functions"}, r.experiment));
  for (const auto& [method, count_key] :
       {std::pair<std::string, std::string>{"JavaMonitors.contend()", "contend_count"},
        {"JavaMonitors.awaitGate()", "await_count"}}) {
    const double truth = r.truth.at(method).get<double>();
    const double count = r.truth.at(count_key).get<double>();
    EXPECT_EQ(value(rows, method, "i.syncn"), count) << method;
    EXPECT_NEAR(value(rows, method, "i.sync"), truth, traced_tolerance(truth, count)) << method;
  }
  // The wait in Object.wait is the JDK's method's, below awaitGate.
  EXPECT_GE(value(rows, "java.lang.Object.wait(long)", "i.syncn"), 1.0);
  const nlohmann::json objects = er_print_json({"-syncobjects"}, r.experiment);
  const nlohmann::json held = monitor_row(objects, "JavaMonitors$HeldLock");
  ASSERT_FALSE(held.is_null()) << objects.dump();
  EXPECT_EQ(held.at("values").at("count").get<double>(), r.truth.at("contend_count").get<double>());
  const double contended = r.truth.at("JavaMonitors.contend()").get<double>();
  EXPECT_NEAR(held.at("values").at("wait").get<double>(), contended, traced_tolerance(contended, 5));
  EXPECT_FALSE(monitor_row(objects, "JavaMonitors$Gate").is_null()) << objects.dump();
}

TEST(JavaMonitors, NoMonitorWaitsWithoutSyncTracing) {
  TempDir dir;
  const JavaRun r = collect_monitors(dir, {"-j", "on", "-p", "on"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_FALSE(std::filesystem::exists(r.experiment / "synctrace"));
}

}  // namespace
}  // namespace lumen::test
