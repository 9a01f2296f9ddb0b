// collect -P on a JVM that already runs (JavaAttachTarget, which times its
// own methods all along): the agent starts in the running JVM, so the
// window's Java methods are named and hold the CPU time the JVM measured
// for them between the attach and the detach, within the sampling
// tolerance, in threads started before and during the attach. After the
// detach the JVM runs on with no thread of the collector's and no runtime
// mapped (the Java half alone stays, as the JVM may still have been about
// to call it), a second attach names its methods again, and the program's
// own checks pass when it exits with its status.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "background_process.h"
#include "java_test_run.h"

namespace lumen::test {
namespace {

using nlohmann::json;

json spent_by_method(const std::filesystem::path& truth) {
  std::ifstream in(truth);
  return json::parse(in).at("functions");
}

// The runtime's and every plugin's objects mapped into `pid` but the Java
// half's.
std::vector<std::string> collector_objects(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::vector<std::string> objects;
  for (std::string line; std::getline(maps, line);)
    if ((line.find("liblumen_collector") != std::string::npos || line.find("/lumen/plugins/") != std::string::npos) &&
        line.find("/plugins/java/") == std::string::npos)
      objects.push_back(line);
  return objects;
}

// Seconds from the experiment's start to when the agent, started in the
// running JVM, could walk Java stacks: the java plugin's start and the time
// the agent says it took (samples before have native stacks only). -1 when
// the log does not say.
double agent_ready_seconds(const std::string& log) {
  auto time_of = [&](const std::string& event) -> long long {
    const size_t at = log.find(event);
    const size_t time = at == std::string::npos ? at : log.find("time_ns: ", at);
    return time == std::string::npos ? -1 : std::stoll(log.substr(time + 9));
  };
  const long long start = time_of("{event: start,"), plugin = time_of("plugin: \"java\"");
  const size_t note = log.find("the agent started in the running JVM in ");
  if (start < 0 || plugin < 0 || note == std::string::npos) return -1;
  const double took_ms = std::stod(log.substr(note + std::string("the agent started in the running JVM in ").size()));
  return (static_cast<double>(plugin - start) + took_ms * 1e6) / 1e9;
}

ProcessResult attach(const TempDir& dir, const std::string& name, pid_t pid, const std::string& seconds) {
  // No archive: collect's copying after the detach (0.8 s here) is time the
  // JVM runs on outside the experiment, which the truth read after holds.
  return run_process({(bin_dir() / "collect").string(), "-o", name, "-d", dir.path().string(), "-A", "off", "-t",
                      seconds, "-P", std::to_string(pid)});
}

TEST(JavaAttach, MethodsAreNamedAndTimedAsTheJvmMeasuredThemAndItRunsOnUnharmed) {
  TempDir dir;
  const std::filesystem::path truth = dir.path() / "truth.json";
  Background jvm({JAVA_TEST_JAVA, "-cp", JAVA_TEST_CLASS_DIR, "JavaAttachTarget", dir.path().string()},
                 {{"LUMEN_TEST_TRUTH", truth.string()}});
  ASSERT_TRUE(wait_for_file(dir.path() / "ready", std::chrono::seconds(30)));
  // Its hot methods compiled before the attach: the agent learns of their
  // code from the JVM's report of what it holds.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const json before = spent_by_method(truth);
  const ProcessResult run = attach(dir, "window.er", jvm.pid(), "3");
  const auto ended = std::chrono::steady_clock::now();
  const auto detached = std::filesystem::file_time_type::clock::now();
  const auto waited_from = std::chrono::steady_clock::now();
  for (int i = 0; i < 200 && std::filesystem::last_write_time(truth) <= detached; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - waited_from).count();
  const json after = spent_by_method(truth);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(run.err.find("not named"), std::string::npos) << run.err;
  EXPECT_EQ(collector_objects(jvm.pid()), std::vector<std::string>{}) << "the collector is mapped after the detach";
  const auto experiment = dir.path() / "window.er";
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu", "-limit", "0", "-functions"}, experiment));
  // The truth read before collect began and after it ended also holds what
  // the JVM's three busy threads spent while collect attached and
  // detached, and after, while it finished the experiment, up to a tick
  // (0.1 s) and the wait for the next.
  const double slack = 3 * (0.1 + waited + seconds_after_detach(experiment, ended) +
                            reported_seconds(run.err, "attached to process") +
                            reported_seconds(run.err, "detached from process"));
  auto spent = [](const json& times, const std::vector<std::string>& methods) {
    double total = 0;
    for (const std::string& m : methods) total += times.at(m).get<double>();
    return total;
  };
  // The two workers' methods together (a sample's skid moves time between
  // them), and the short-lived threads' (some started during the attach).
  for (const std::vector<std::string>& methods : {std::vector<std::string>{"JavaAttachTarget.spinAlpha(long)",
                                                                           "JavaAttachTarget.spinBeta(long)"},
                                                  std::vector<std::string>{"JavaAttachTarget.spinGamma(long)"}}) {
    const double truth_seconds = spent(after, methods) - spent(before, methods);
    double measured = 0;
    for (const std::string& m : methods) measured += row_value(rows, m, "i.totalcpu");
    EXPECT_LE(measured, truth_seconds + sampling_tolerance(truth_seconds, 0.01)) << methods.front();
    EXPECT_GE(measured, truth_seconds - sampling_tolerance(truth_seconds, 0.01) - slack) << methods.front();
  }
  std::ifstream log(experiment / "collector.log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("java: the agent started in the running JVM"), std::string::npos) << text;
  // Stacks the agent could not walk once it could walk any: as few as in a
  // JVM started under collect. Before, a sample has native frames only.
  const double ready = agent_ready_seconds(text);
  ASSERT_GE(ready, 0) << text;
  char since_ready[64];
  std::snprintf(since_ready, sizeof since_ready, "time >= %.9f", ready);
  unwalked_cpu(rows_by_name(er_print_json({"-filters", since_ready, "-metrics", "i.totalcpu", "-limit", "0", "-functions"},
                                          experiment)));
  // The worker threads are named as Java names them.
  const std::string threads = er_print_json({"-thread_list"}, experiment).dump();
  EXPECT_NE(threads.find("attach-worker-0"), std::string::npos) << threads;
  // Attached again: the agent starts anew in the JVM that kept the Java half.
  const ProcessResult again = attach(dir, "again.er", jvm.pid(), "1");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_GT(row_value(rows_by_name(er_print_json({"-metrics", "i.totalcpu", "-functions"}, dir.path() / "again.er")),
                      "JavaAttachTarget.spinBeta(long)", "i.totalcpu"),
            0.0)
      << again.err;
  EXPECT_EQ(collector_objects(jvm.pid()), std::vector<std::string>{});
  std::ofstream(dir.path() / "stop").put('\n');
  EXPECT_EQ(jvm.wait_exit(std::chrono::seconds(30)), 3) << "the JVM's own checks failed (its standard error names them)";
}

}  // namespace
}  // namespace lumen::test
