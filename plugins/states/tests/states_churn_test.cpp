// Many short threads under the states: some end without leaving their CPU,
// some block first (a condition variable, a mutex, a sleep). Each thread measured itself (its CPU time, its run delay
// from /proc/thread-self/schedstat, wall time) from the first to the last
// thing its function did, and the main thread when it created and joined
// it. A thread's recorded figures cover a span that holds its function
// and lies within [created, joined]: from its begin, or from its creation
// (a thread's counters are zero at its clone), to its end; its run delay
// is its schedstat's over that span. So each bound
// below is a measurement, not a tolerance: a thread's recorded run delay
// is at least what its function waited and at most all it waited up to
// its function's end plus the wall time from there to its join. A
// thread's total is at most its life from its creation to its join, but
// for what the states settle only at their readings, a sampling interval
// apart (time waiting for a CPU or running is carried to the next reading
// that explains it): up to one interval (0.19 ms seen unloaded, a few ms
// with three busy loops beside it), and the machine's steal time over the
// run, which the threads' wall clocks go on through.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

using nlohmann::json;

// er_print's figures are in seconds with this many places at least; a
// bound is widened by one unit of the last.
constexpr double kPrinted = 1e-6;
// collect -p on: clock profiling's interval, which the states take.
constexpr double kSamplingInterval = 0.010;

double at(const json& row, const char* key) { return row.at("values").at(key).get<double>(); }

TEST(StatesThreadChurn, EachThreadsFiguresHoldItsOwnMeasurement) {
  const TempDir dir;
  const double steal_before = machine_steal_seconds();
  const Collection run = collect(dir, {"-p", "on"}, LUMEN_STATES_CHURN_TARGET, {"400"});
  const double stolen = machine_steal_seconds() - steal_before;
  ASSERT_EQ(run.run.exit_code, 0) << run.run.out << run.run.err;
  EXPECT_EQ(run.run.out, "states_churn_target: 400 threads\n");
  const json view = er_print_json({"-metrics", "e.total:e.wait", "-thread_list"}, run.experiment);
  std::map<long, json> by_tid;
  for (const json& row : view.at("rows")) by_tid[std::stol(row.at("tid").get<std::string>())] = row;
  double function_delay = 0;
  for (const json& thread : run.truth.at("threads")) {
    const long tid = thread.at("tid");
    const std::string kind = thread.at("kind");
    ASSERT_TRUE(by_tid.count(tid)) << kind << " thread " << tid << " has no row";
    const json& row = by_tid[tid];
    const double created = thread.at("created"), start = thread.at("start"), end = thread.at("end"),
                 joined = thread.at("joined");
    const double delay_start = thread.at("delay_start"), delay_end = thread.at("delay_end");
    const double cpu = thread.at("cpu_end").get<double>() - thread.at("cpu_start").get<double>();
    function_delay += delay_end - delay_start;
    const double total = at(row, "e.total"), wait = at(row, "e.wait");
    EXPECT_GE(total, end - start - kPrinted) << kind << " " << tid;
    EXPECT_LE(total, joined - created + kSamplingInterval + stolen + kPrinted)
        << kind << " " << tid << ": lived " << joined - created << " s, the machine's steal " << stolen << " s";
    EXPECT_GE(wait, delay_end - delay_start - kPrinted) << kind << " " << tid;
    EXPECT_LE(wait, delay_end + (joined - end) + kPrinted) << kind << " " << tid;
    // What is not run delay was on a CPU or blocked: at least its
    // function's CPU time.
    EXPECT_GE(total - wait, cpu - kPrinted) << kind << " " << tid;
  }
  // The process's figures are the threads' schedstat counters over the
  // spans their intervals cover: the states account for all of them.
  const json stats = er_print_json({"-statistics"}, run.experiment);
  const json& e = stats.at("records").at(0);
  EXPECT_GE(e.at("process.wait").get<double>(), function_delay - kPrinted);
  EXPECT_NEAR(e.at("profiled.wait").get<double>(), 100.0, 2.0);
  EXPECT_NEAR(e.at("profiled.total").get<double>(), 100.0, 1.0);
  // Most threads that never left their CPU end without a reading.
  std::ifstream log(run.experiment / "collector.log");
  const std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  const std::string said = "threads that ended knowing their counters without reading them: ";
  const size_t found = text.find(said);
  ASSERT_NE(found, std::string::npos) << text;
  EXPECT_GT(std::stol(text.substr(found + said.size())), 0) << text.substr(found, 200);
}

}  // namespace
}  // namespace lumen::test
