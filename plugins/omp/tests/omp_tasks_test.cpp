// Explicit tasks under GCC's libgomp (interposed GOMP_task) and LLVM's
// libomp (OMPT task_create/task_schedule): omp_tasks_target's thread 0
// creates twelve tasks of known CPU time in tasks_region, run by both
// threads (at thread 0's taskwait and at the other's end barrier); each
// task times itself, and the process its CPU time over tasks_region.
// OMP_WAIT_POLICY=passive: a waiting thread sleeps, so the function's CPU
// time is the tasks' and little else. CPU time only (-states off): a task
// waiting for a CPU would be OpenMP Wait, which the tasks do not measure.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <memory>

#include "lumen_commands.h"
#include "omp_test_rows.h"

namespace lumen::test {
namespace {

using nlohmann::json;

struct TasksBuild {
  const char* name;
  const char* target;
  const char* body_markers[2];  // in the names of the functions the compiler outlined
};

void PrintTo(const TasksBuild& build, std::ostream* out) { *out << build.name; }

const TasksBuild kBuilds[] = {
    {"libgomp", LUMEN_OMP_TASKS_TARGET, {"._omp_fn.", "._omp_fn."}},
#ifdef LUMEN_OMP_TASKS_CLANG_TARGET
    {"libomp", LUMEN_OMP_TASKS_CLANG_TARGET, {".omp_outlined", ".omp_task_entry"}},
#endif
};

struct PassiveWaitPolicy {
  PassiveWaitPolicy() { setenv("OMP_WAIT_POLICY", "passive", 1); }
  ~PassiveWaitPolicy() { unsetenv("OMP_WAIT_POLICY"); }
};

class OmpTasks : public testing::TestWithParam<TasksBuild> {
 protected:
  static const Collection& run_of(const TasksBuild& build) {
    static std::map<std::string, std::unique_ptr<TempDir>> dirs;
    static std::map<std::string, Collection> runs;
    auto found = runs.find(build.name);
    if (found == runs.end()) {
      PassiveWaitPolicy policy;
      const TempDir& dir = *(dirs[build.name] = std::make_unique<TempDir>());
      found = runs.emplace(build.name, collect(dir, {"-p", "on", "-states", "off"}, build.target)).first;
    }
    return found->second;
  }
  void SetUp() override {
    run_ = &run_of(GetParam());
    ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
    ASSERT_FALSE(run_->truth.is_null());
  }
  const Collection* run_ = nullptr;
};

TEST_P(OmpTasks, TasksOfKnownWorkByCreationSite) {
  const double tasks = run_->truth.at("tasks").get<double>();
  const double task_wall = run_->truth.at("task_wall").get<double>();
  const json view = er_print_json({"-omp_task"}, run_->experiment);
  ASSERT_EQ(view.at("tables").size(), 1u) << view.dump();
  EXPECT_EQ(view.at("summary").at("tasks").get<double>(), tasks) << view.dump();
  const auto sites = rows_by_name(view.at("tables")[0]);
  ASSERT_EQ(sites.size(), 1u) << view.dump();
  EXPECT_NE(sites.begin()->first.find("tasks_region"), std::string::npos) << sites.begin()->first;
  EXPECT_EQ(sites.begin()->second.at("count").get<double>(), tasks);
  // The trace's run time of each task holds the program's own wall time of
  // it, microseconds apart.
  EXPECT_NEAR(sites.begin()->second.at("time").get<double>(), task_wall, 0.001 * tasks + 0.01 * task_wall);
}

// User mode: every task's work is under the function that created it, on
// whichever thread it ran, and all of it is work, none wait (a thread runs
// tasks inside its barrier and taskwait, which cut the wait).
TEST_P(OmpTasks, UserModePutsEveryTaskUnderTheFunctionCreatingIt) {
  const double task_cpu = run_->truth.at("task_cpu").get<double>();
  const double region_cpu = run_->truth.at("region_cpu").get<double>();
  const auto rows = rows_by_name(er_print_json(
      {"-viewmode", "user", "-metrics", "i.totalcpu:i.ompwork:i.ompwait:name", "-functions"}, run_->experiment));
  EXPECT_NEAR(value(rows, "task_work", "i.ompwork"), task_cpu, sampling_tolerance(task_cpu, kClockInterval));
  EXPECT_EQ(value(rows, "task_work", "i.ompwait"), 0.0);
  EXPECT_NEAR(value(rows, "tasks_region", "i.totalcpu"), region_cpu, sampling_tolerance(region_cpu, kClockInterval));
  for (const char* marker : GetParam().body_markers)
    EXPECT_FALSE(any_row_contains(rows, marker)) << "an outlined function in user mode: " << marker;
  // The creating function's one callee of CPU time is task_work, whose
  // one caller it is.
  const json single = er_print_json({"-viewmode", "user", "-metrics", "i.totalcpu:name", "-csingle", "task_work"},
                                    run_->experiment);
  std::vector<std::string> callers;
  for (const json& caller : single.at("rows").at(0).at("callers"))
    if (caller.at("values").at("a.totalcpu").get<double>() > 0) callers.push_back(caller.at("name"));
  EXPECT_EQ(callers, std::vector<std::string>{"tasks_region"}) << single.dump();
}

INSTANTIATE_TEST_SUITE_P(Runtimes, OmpTasks, testing::ValuesIn(kBuilds),
                         [](const testing::TestParamInfo<TasksBuild>& info) { return std::string(info.param.name); });

// GCC's taskloops (GOMP_taskloop and GOMP_taskloop_ull): omp_taskloop_target
// runs one of each, in long_loop and ull_loop, of eight tasks of known CPU
// time; each loop's tasks are listed at its function and run under it in
// user mode, as work.
TEST(OmpTaskloop, TasksOfEachTaskloopByCreationSite) {
  PassiveWaitPolicy policy;
  TempDir dir;
  const Collection run = collect(dir, {"-p", "on", "-states", "off"}, LUMEN_OMP_TASKLOOP_TARGET);
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  ASSERT_FALSE(run.truth.is_null());
  const json view = er_print_json({"-omp_task"}, run.experiment);
  ASSERT_EQ(view.at("tables").size(), 1u) << view.dump();
  const auto sites = rows_by_construct_function(view.at("tables")[0]);
  const auto functions = rows_by_name(er_print_json(
      {"-viewmode", "user", "-metrics", "i.totalcpu:i.ompwork:i.ompwait:name", "-functions"}, run.experiment));
  double tasks = 0;
  for (const char* loop : {"long_loop", "ull_loop"}) {
    const json& truth = run.truth.at(loop);
    tasks += truth.at("tasks").get<double>();
    ASSERT_TRUE(sites.count(loop)) << loop << " in " << view.dump();
    EXPECT_EQ(sites.at(loop).at("count").get<double>(), truth.at("tasks").get<double>()) << loop;
    const double wall = truth.at("wall").get<double>(), cpu = truth.at("cpu").get<double>();
    EXPECT_NEAR(sites.at(loop).at("time").get<double>(), wall, 0.001 * truth.at("tasks").get<double>() + 0.01 * wall)
        << loop;
    // The loop's function holds its tasks' work, on both threads; a
    // thread waiting for tasks sleeps (passive).
    EXPECT_NEAR(value(functions, loop, "i.totalcpu"), cpu, sampling_tolerance(cpu, kClockInterval)) << loop;
  }
  EXPECT_EQ(view.at("summary").at("tasks").get<double>(), tasks) << view.dump();
  const double chunk_cpu =
      run.truth.at("long_loop").at("cpu").get<double>() + run.truth.at("ull_loop").at("cpu").get<double>();
  EXPECT_NEAR(value(functions, "chunk_work", "i.ompwork"), chunk_cpu, sampling_tolerance(chunk_cpu, kClockInterval));
  EXPECT_EQ(value(functions, "chunk_work", "i.ompwait"), 0.0);
  EXPECT_FALSE(any_row_contains(functions, "._omp_fn.")) << "an outlined body in user mode";
}

}  // namespace
}  // namespace lumen::test
