// OpenMP on an oversubscribed machine, under GCC's libgomp and LLVM's
// libomp: omp_regions_target runs two regions of four threads on the two
// CPUs (the other load of the machine beside), round after round, and
// measures each work function's wall time, CPU time and run delay, every
// thread's wait at each region's end, the workers' idle time and each
// region's imbalance (wall times). collect -p on records clock profiling,
// the off-CPU states and the trace; er_print must match that truth:
//   * Total Thread Time is where the CPU time is, and more (its time on a
//     CPU is the clock's samples, its wait for a CPU goes with the sample
//     nearest it);
//   * OpenMP Wait is the time waiting, on a CPU or not, as Oracle defines
//     it, and a thread's wait for a CPU while it works in a region;
//   * -omp_preg lists the two regions of one function apart, at their
//     constructs' lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>

#include "lumen_commands.h"
#include "omp_test_rows.h"

namespace lumen::test {
namespace {

using nlohmann::json;

constexpr double kInterval = kClockInterval;
constexpr const char* kThreads = "4";
constexpr const char* kRounds = "4";

const OmpBuild kBuilds[] = {
    {"libgomp", LUMEN_OMP_REGIONS_TARGET},
#ifdef LUMEN_OMP_REGIONS_CLANG_TARGET
    {"libomp", LUMEN_OMP_REGIONS_CLANG_TARGET},
#endif
};

// What a row of thread time may be off by: the states' intervals are the
// clock's (10 ms), and what one interval's end saw stands for all of it,
// so each time a thread enters the row's state it may bring one interval
// of the state before (at least ten intervals in all), and 15 %.
double thread_time_tolerance(double truth, int entries = 10) {
  return std::max(entries, 10) * kInterval + 0.15 * truth;
}
// Entries into a region's end barrier (every thread of the team, each
// instance) and into idle (every worker, after each instance).
const int kBarrierEntries = std::atoi(kThreads) * std::atoi(kRounds) * 2;
const int kIdleEntries = (std::atoi(kThreads) - 1) * std::atoi(kRounds) * 2;

class OmpOversubscribed : public testing::TestWithParam<OmpBuild> {
 protected:
  static const Collection& run_of(const OmpBuild& build) {
    static std::map<std::string, TempDir> dirs;  // one per build: an experiment is never overwritten
    static std::map<std::string, Collection> runs;
    auto found = runs.find(build.name);
    if (found == runs.end())
      found = runs.emplace(build.name, collect(dirs[build.name], {"-p", "on"}, build.target, {kThreads, kRounds})).first;
    return found->second;
  }
  void SetUp() override {
    run_ = &run_of(GetParam());
    ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
    ASSERT_FALSE(run_->truth.is_null());
  }
  std::map<std::string, json> functions() const {
    const std::string metrics =
        "e.totalcpu:i.totalcpu:e.total:i.total:e.wait:i.wait:e.lock:e.sleep:e.datapfault:e.textpfault:e.stop:"
        "e.ompwork:i.ompwork:e.ompwait:i.ompwait:name";
    return rows_by_name(er_print_json({"-metrics", metrics, "-functions"}, run_->experiment));
  }
  // The sum over the work functions of what the program measured of each.
  double work_truth(const std::string& what) const {
    double sum = 0;
    for (const char* function : kWork) sum += run_->truth.at(function).at(what).get<double>();
    return sum;
  }
  static double work_rows(const std::map<std::string, json>& rows, const std::string& metric) {
    double sum = 0;
    for (const char* function : kWork) sum += value(rows, function, metric);
    return sum;
  }
  static constexpr const char* kWork[] = {"alpha_work", "beta_work", "serial_work"};
  const Collection* run_ = nullptr;
};

// Every row's thread time holds its CPU time, at the same moments: the
// waits' artificial functions hold each thread's wait at a region's end
// and a worker's idle time, on a CPU or not, as the program measured them;
// the work functions their wall time, time on a CPU and waiting for one.
// On a machine this overcommitted the kernel expires a thread's CPU-time
// timer only at a tick that finds it running, so the clock's samples (its
// CPU time and, with it, its wait for a CPU) smear between functions whose
// stretches are short: the work functions are compared together.
TEST_P(OmpOversubscribed, ThreadTimeIsWhereTheCpuTimeIs) {
  const auto rows = functions();
  for (const auto& [name, row] : rows) {
    for (const std::string f : {"e.", "i."})
      EXPECT_GE(row.at(f + "total").get<double>(), row.at(f + "totalcpu").get<double>() - 1e-6) << name << " " << f;
    // What of it was on a CPU is the CPU time there (a thread clock
    // profiling never sampled adds its own, under one interval).
    double off_cpu = 0;
    for (const char* state : {"e.wait", "e.lock", "e.sleep", "e.datapfault", "e.textpfault", "e.stop"})
      off_cpu += row.at(state).get<double>();
    EXPECT_NEAR(row.at("e.total").get<double>() - off_cpu, row.at("e.totalcpu").get<double>(), kInterval) << name;
  }
  const json& t = run_->truth;
  const double barrier = t.at("region_end_wait")[0].get<double>() + t.at("region_end_wait")[1].get<double>();
  const double idle = t.at("idle").get<double>();
  EXPECT_NEAR(value(rows, "<OMP-implicit_barrier>", "e.total"), barrier,
              thread_time_tolerance(barrier, kBarrierEntries));
  EXPECT_NEAR(value(rows, "<OMP-idle>", "e.total"), idle, thread_time_tolerance(idle, kIdleEntries));
  const double wall = work_truth("wall");
  // Each thread leaves its work for the barrier and comes back to it once
  // a region instance: an interval each way.
  EXPECT_NEAR(work_rows(rows, "i.total"), wall, thread_time_tolerance(wall, 2 * kBarrierEntries));
  // The runtime's own code holds the time the program saw it take: the
  // encountering thread's from each construct to its body, the workers'
  // from the first construct to their first body (the runtime made them);
  // and, of a thread's waits for a CPU in a stretch with no sample of its
  // own, those whose nearest sample was the runtime's (1 % of the time).
  const double runtime = t.at("fork").get<double>() + t.at("startup").get<double>();
  EXPECT_LE(value(rows, "<OMP-overhead>", "e.total"),
            runtime + thread_time_tolerance(runtime) + 0.01 * value(rows, "<Total>", "e.total"));
}

// OpenMP Wait: each thread's wait at a region's end and a worker's idle
// time, whether it spun, slept or waited for a CPU, and a thread working
// in a region waiting for a CPU; serial work's wait for a CPU is not.
TEST_P(OmpOversubscribed, OpenMPWaitIsTheTimeWaitingOnACpuOrNot) {
  const auto rows = functions();
  const json& t = run_->truth;
  const double barrier = t.at("region_end_wait")[0].get<double>() + t.at("region_end_wait")[1].get<double>();
  const double idle = t.at("idle").get<double>();
  EXPECT_NEAR(value(rows, "<OMP-implicit_barrier>", "e.ompwait"), barrier,
              thread_time_tolerance(barrier, kBarrierEntries));
  EXPECT_NEAR(value(rows, "<OMP-idle>", "e.ompwait"), idle, thread_time_tolerance(idle, kIdleEntries));
  const double parallel_delay =
      t.at("alpha_work").at("delay").get<double>() + t.at("beta_work").at("delay").get<double>();
  EXPECT_NEAR(work_rows(rows, "i.ompwait"), parallel_delay, thread_time_tolerance(parallel_delay));
  const double cpu = work_truth("cpu");
  EXPECT_NEAR(work_rows(rows, "i.ompwork"), cpu, sampling_tolerance(cpu, kInterval));
  const double everything = barrier + idle + parallel_delay;
  EXPECT_NEAR(value(rows, "<Total>", "e.ompwait"), everything,
              thread_time_tolerance(everything, kBarrierEntries + kIdleEntries));
}

// The two regions of two_regions are two rows, each at its construct's
// line, each with its own imbalance as the program measured it.
TEST_P(OmpOversubscribed, RegionsAreListedByConstruct) {
  const json view = er_print_json({"-omp_preg"}, run_->experiment);
  ASSERT_EQ(view.at("tables").size(), 1u) << view.dump();
  const auto rows = rows_by_name(view.at("tables")[0]);
  const json& t = run_->truth;
  EXPECT_EQ(view.at("summary").at("constructs").get<double>(), 2.0) << view.dump();
  const double rounds = t.at("rounds").get<double>();
  const int lines[] = {t.at("line_a").get<int>(), t.at("line_b").get<int>()};
  for (int r = 0; r < 2; ++r) {
    const std::string name = "two_regions, line " + std::to_string(lines[r]) + " in \"omp_regions_target.c\"";
    ASSERT_TRUE(rows.count(name)) << name << " in " << view.dump();
    const json& row = rows.at(name);
    EXPECT_EQ(row.at("count").get<double>(), rounds) << name;
    EXPECT_EQ(row.at("team").get<double>(), std::stod(kThreads)) << name;
    // Task and body begin and end microseconds apart, on a loaded machine
    // sometimes a preemption apart.
    const double imbalance = t.at("imbalance")[r].get<double>();
    EXPECT_NEAR(row.at("imbalance").get<double>(), imbalance, 0.005 * rounds + 0.05 * imbalance) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(Runtimes, OmpOversubscribed, testing::ValuesIn(kBuilds),
                         [](const testing::TestParamInfo<OmpBuild>& info) { return std::string(info.param.name); });

#ifdef LUMEN_OMP_REGIONS_CLANG_TARGET
// -omp_states classes each sample as the function views do: a worker's
// sample in the trace's idle time is idle (libomp says
// wait_barrier_implicit there), and the waits' and idle samples are as
// many as the CPU time of the waits' artificial functions says. The
// workers spin while idle (OMP_WAIT_POLICY=active), so idle time is CPU
// time a clock profile samples: by default libomp's idle workers yield,
// and on a loaded machine the run may hold no idle sample at all.
TEST(OmpStatesOversubscribed, StatesViewCountsSamplesAsTheFunctionViews) {
  TempDir dir;
  setenv("OMP_WAIT_POLICY", "active", 1);
  const Collection run = collect(dir, {"-p", "on"}, LUMEN_OMP_REGIONS_CLANG_TARGET, {kThreads, kRounds});
  unsetenv("OMP_WAIT_POLICY");
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  const json states = er_print_json({"-omp_states"}, run.experiment);
  const json& summary = states.at("summary");
  const double work = summary.at("work").get<double>(), overhead = summary.at("overhead").get<double>();
  const double wait = summary.at("wait").get<double>(), idle = summary.at("idle").get<double>();
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.totalcpu:name", "-functions"}, run.experiment));
  const double idle_cpu = value(rows, "<OMP-idle>", "e.totalcpu");
  const double total_cpu = value(rows, "<Total>", "e.totalcpu");
  ASSERT_GT(idle_cpu, 0.0);
  EXPECT_GT(idle, 0.0) << states.dump();
  // Shares of the samples against shares of the CPU time: samples weigh
  // what their thread ran since its previous one.
  const double samples = work + overhead + wait + idle;
  EXPECT_NEAR(idle / samples, idle_cpu / total_cpu, 0.1 + 0.3 * idle_cpu / total_cpu) << states.dump();
}
#endif

}  // namespace
}  // namespace lumen::test
