// Java monitors as sync waits end to end: JavaMonitors (a contended
// synchronized block whose holder keeps the lock a known time, and an
// Object.wait), which times its own waits with System.nanoTime, under
// collect -s; er_print's Sync Wait Time and Count of the waiting methods,
// and -syncobjects' monitors, compared with that truth. The waits
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

// The -syncobjects row of the monitor named `name` (its object's class and
// identity hash code, "java.lang.Object@1b6d3586"), or null.
nlohmann::json monitor_row(const nlohmann::json& view, const std::string& name) {
  for (const auto& table : view.at("tables"))
    for (const auto& row : table.at("rows"))
      if (row.at("name") == "monitor " + name) return row;
  return nullptr;
}

// The -syncobjects row of the one monitor of class `klass`, or null.
nlohmann::json monitor_of_class(const nlohmann::json& view, const std::string& klass) {
  nlohmann::json found = nullptr;
  for (const auto& row : view.at("tables").at(0).at("rows")) {
    if (row.at("name").get<std::string>().rfind("monitor " + klass + "@", 0) != 0) continue;
    if (!found.is_null()) return nullptr;
    found = row;
  }
  return found;
}

// A millisecond a wait for the JVM's event and clock reads, and 2 %.
double traced_tolerance(double truth, double count) { return 0.001 * count + 0.02 * truth; }

// JavaContention takes each lock 48 times (4 threads, 12 rounds) and times
// each acquisition, from before it to after it: 0.25 ms an acquisition for
// the code around the JVM's wait (the monitor's spin before its event, a
// ReentrantLock's queueing between parks), 2 %, and the time the thread
// was kept from a CPU in its acquisitions, which it measured: preempted
// between its clock and the JVM's event, the two differ by that much.
// (Seen unloaded: 1 to 4 ms of 0.006 to 0.84 s.)
constexpr double kContentionAcquisitions = 48;
double acquisition_tolerance(double truth, double run_delay) {
  return 0.00025 * kContentionAcquisitions + 0.02 * truth + run_delay;
}

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
  const nlohmann::json held = monitor_of_class(objects, "JavaMonitors$HeldLock");
  ASSERT_FALSE(held.is_null()) << objects.dump();
  EXPECT_EQ(held.at("values").at("count").get<double>(), r.truth.at("contend_count").get<double>());
  const double contended = r.truth.at("JavaMonitors.contend()").get<double>();
  EXPECT_NEAR(held.at("values").at("wait").get<double>(), contended, traced_tolerance(contended, 5));
  EXPECT_FALSE(monitor_of_class(objects, "JavaMonitors$Gate").is_null()) << objects.dump();
}

// JavaContention: four threads take two Object monitors and a
// ReentrantLock in turn, timing every acquisition. In user mode the
// monitors' waits are the exclusive Sync Wait Time of the methods that
// entered them (what they call while they hold the monitor waits too: a
// sleep, a garbage collection), the ReentrantLock's that of lock() (its parks,
// with their Java frames), each what the program measured; the waits of
// the JVM's own threads (GC, JIT compilers, the VM thread) are
// <JVM-System>'s. -syncobjects shows each monitor apart, by its class and
// identity hash code.
TEST(JavaMonitors, ContendedLocksAreTheWaitsOfTheMethodsThatWaited) {
  TempDir dir;
  const JavaRun r = collect_java_program(dir, {"-j", "on", "-s", "on", "-p", "off"}, {JAVA_TEST_JAVA}, {"JavaContention"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  ASSERT_NE(r.run.out.find("contention done"), std::string::npos) << r.run.out;
  const auto run_delay = [&](const std::string& method) { return r.truth.at("run_delay").at(method).get<double>(); };
  const auto rows = rows_by_name(
      er_print_json({"-viewmode", "user", "-metrics", "e.sync:i.sync:i.syncn:name", "-functions"}, r.experiment));
  for (const char* method : {"JavaContention.enterA()", "JavaContention.enterB()"}) {
    const double truth = r.truth.at(method).get<double>();
    EXPECT_NEAR(value(rows, method, "e.sync"), truth, acquisition_tolerance(truth, run_delay(method))) << method;
  }
  const double parked = r.truth.at("JavaContention.enterLock()").get<double>();
  EXPECT_NEAR(value(rows, "java.util.concurrent.locks.ReentrantLock.lock()", "i.sync"), parked,
              acquisition_tolerance(parked, run_delay("JavaContention.enterLock()")));
  EXPECT_GT(value(rows, "<JVM-System>", "i.sync"), 0.0);
  const nlohmann::json objects = er_print_json({"-syncobjects"}, r.experiment);
  for (const std::string lock : {"A", "B"}) {
    const nlohmann::json row = monitor_row(objects, "java.lang.Object@" + r.truth.at("lock" + lock).get<std::string>());
    ASSERT_FALSE(row.is_null()) << "lock" << lock << ": " << objects.dump().substr(0, 3000);
    const std::string method = "JavaContention.enter" + lock + "()";
    const double truth = r.truth.at(method).get<double>();
    EXPECT_NEAR(row.at("values").at("wait").get<double>(), truth, acquisition_tolerance(truth, run_delay(method)))
        << "lock" << lock;
  }
}

TEST(JavaMonitors, NoMonitorWaitsWithoutSyncTracing) {
  TempDir dir;
  const JavaRun r = collect_monitors(dir, {"-j", "on", "-p", "on"});
  ASSERT_EQ(r.run.exit_code, 0) << r.run.err;
  EXPECT_FALSE(std::filesystem::exists(r.experiment / "synctrace"));
}

}  // namespace
}  // namespace lumen::test
