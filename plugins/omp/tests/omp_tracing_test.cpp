// OpenMP tracing under GCC's libgomp and LLVM's libomp: omp_target (two threads,
// OMP_WAIT_POLICY=active) measures its work and its waits in CPU time, and
// its imbalanced region's tasks in wall time; collect -p on plans the
// OpenMP plugin by itself, and er_print's ompwork, ompwait and -omp_preg
// must match that truth within what sampling (or, for traced times, the
// clock) promises. The off-CPU states are left out (-states off): OpenMP
// Wait then counts CPU time only, as the program does (what the states add
// is omp_regions_test.cpp's).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "lumen_commands.h"
#include "omp_test_rows.h"

namespace lumen::test {
namespace {

using nlohmann::json;

constexpr double kInterval = kClockInterval;

struct ActiveWaitPolicy {
  ActiveWaitPolicy() { setenv("OMP_WAIT_POLICY", "active", 1); }
  ~ActiveWaitPolicy() { unsetenv("OMP_WAIT_POLICY"); }
};

std::map<std::string, json> function_rows(const std::filesystem::path& experiment) {
  return rows_by_name(er_print_json(
      {"-metrics", "e.totalcpu:i.totalcpu:e.ompwork:i.ompwork:e.ompwait:i.ompwait:e.omptwait:name", "-functions"},
      experiment));
}

// One OpenMP runtime's build of omp_target: what its names look like.
struct Runtime {
  const char* name;           // the test's suffix
  const char* target;         // omp_target built for this runtime
  const char* header;         // what -header says of the runtime
  const char* library;        // the runtime's load object
  const char* body_marker;    // in the names of the bodies the compiler outlined
  const char* imbalanced_body;  // the body of imbalanced_region's parallel construct
};

void PrintTo(const Runtime& runtime, std::ostream* out) { *out << runtime.name; }

const Runtime kRuntimes[] = {
    {"libgomp", LUMEN_OMP_TARGET, "GCC libgomp", "libgomp.so", "._omp_fn.", "imbalanced_region._omp_fn.0"},
#ifdef LUMEN_OMP_CLANG_TARGET
    {"libomp", LUMEN_OMP_CLANG_TARGET, "LLVM libomp", "libomp.so", ".omp_outlined.", ".omp_outlined."},
#endif
};

// One collection per runtime, shared by that runtime's tests.
class OmpTracing : public testing::TestWithParam<Runtime> {
 protected:
  static const Collection& run_of(const Runtime& runtime) {
    static std::map<std::string, TempDir> dirs;  // one per runtime: an experiment is never overwritten
    static std::map<std::string, Collection> runs;
    auto found = runs.find(runtime.name);
    if (found == runs.end()) {
      ActiveWaitPolicy policy;
      found = runs.emplace(runtime.name, collect(dirs[runtime.name], {"-p", "on", "-states", "off"}, runtime.target)).first;
    }
    return found->second;
  }
  void SetUp() override { run_ = &run_of(GetParam()); }
  const Collection* run_ = nullptr;
};

TEST_P(OmpTracing, PlannedByItselfWithClockProfiling) {
  ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
  EXPECT_TRUE(std::filesystem::is_regular_file(run_->experiment / "omptrace"));
  std::ifstream header(run_->experiment / "header.yaml");
  std::stringstream text;
  text << header.rdbuf();
  EXPECT_NE(text.str().find("omp:"), std::string::npos) << text.str();
}

TEST_P(OmpTracing, HeaderSaysRuntimeAndWaitPolicy) {
  const json header = er_print_json({"-header"}, run_->experiment);
  EXPECT_NE(header.dump().find(std::string("OpenMP: ") + GetParam().header + ", OMP_WAIT_POLICY=active"),
            std::string::npos)
      << header.dump();
}

TEST_P(OmpTracing, WorkAndWaitMatchTheProgramsOwnTimes) {
  ASSERT_FALSE(run_->truth.is_null());
  const json& truth = run_->truth;
  const auto rows = function_rows(run_->experiment);
  ASSERT_TRUE(rows.count("<Total>"));
  // Work and wait partition the sampled CPU time, in every row.
  for (const auto& [name, row] : rows)
    for (const std::string f : {"e.", "i."})
      EXPECT_NEAR(row.at(f + "ompwork").get<double>() + row.at(f + "ompwait").get<double>(),
                  row.at(f + "totalcpu").get<double>(), 1e-6)
          << name << " " << f;
  const double work = truth.at("work").get<double>(), wait = truth.at("wait").get<double>();
  EXPECT_NEAR(value(rows, "<Total>", "e.ompwork"), work, sampling_tolerance(work, kInterval));
  EXPECT_NEAR(value(rows, "<Total>", "e.ompwait"), wait, sampling_tolerance(wait, kInterval));
  // Each work function is work only, whichever thread ran it.
  for (const char* function : {"imbalanced_work", "serial_work", "barrier_work", "locked_work", "critical_work"}) {
    const double used = truth.at(function).get<double>();
    EXPECT_NEAR(value(rows, function, "i.ompwork"), used, sampling_tolerance(used, kInterval)) << function;
    EXPECT_EQ(value(rows, function, "i.ompwait"), 0.0) << function;
  }
  // The trace's own wall times of the waits it implies.
  EXPECT_GT(value(rows, "<OMP-implicit_barrier>", "e.omptwait"), 0.0);
  EXPECT_GT(value(rows, "<OMP-idle>", "e.omptwait"), 0.0);
}

TEST_P(OmpTracing, ParallelRegionsByConstruct) {
  const json view = er_print_json({"-omp_preg"}, run_->experiment);
  const std::string text = view.dump();
  ASSERT_EQ(view.at("tables").size(), 1u) << text;
  const auto rows = rows_by_construct_function(view.at("tables")[0]);
  EXPECT_EQ(view.at("summary").at("regions").get<double>(), 4.0);
  EXPECT_EQ(view.at("summary").at("constructs").get<double>(), 4.0);
  // Four regions, one per function holding one, at its construct's line.
  for (const char* site : {"imbalanced_region", "barrier_region", "lock_region", "critical_region"}) {
    ASSERT_TRUE(rows.count(site)) << site << " in " << text;
    EXPECT_EQ(rows.at(site).at("count").get<double>(), 1.0) << site;
    EXPECT_EQ(rows.at(site).at("team").get<double>(), 2.0) << site;
    // The call site as the user wrote it: the function holding the region
    // first, no frame of the runtime's (libomp's callbacks unwind from it).
    json stack;
    for (const json& row : view.at("tables")[0].at("rows"))
      if (row.at("name").get<std::string>().rfind(std::string(site) + ", line ", 0) == 0) stack = row.at("stack");
    ASSERT_FALSE(stack.empty()) << site;
    EXPECT_EQ(stack[0].at("function").get<std::string>(), site);
    for (const json& frame : stack) {
      const std::string object = frame.at("load_object").get<std::string>();
      EXPECT_TRUE(object.rfind("libomp", 0) != 0 && object.rfind("libgomp", 0) != 0) << site << ": " << frame.dump();
    }
  }
  // Imbalance: the program's wall times of its two tasks, and the trace's,
  // are taken microseconds apart.
  const double imbalance = run_->truth.at("imbalance").get<double>();
  EXPECT_NEAR(rows.at("imbalanced_region").at("imbalance").get<double>(), imbalance, 0.002 + 0.02 * imbalance);
}

std::map<std::string, json> rows_in_mode(const std::filesystem::path& experiment, const std::string& mode,
                                         const std::string& view = "-functions") {
  return rows_by_name(er_print_json(
      {"-viewmode", mode, "-metrics", "e.totalcpu:i.totalcpu:e.ompwork:e.ompwait:e.omptwait:name", view}, experiment));
}

// User mode (the default): each region's body runs inside the function
// holding it on every thread, libgomp is gone, and the time the runtime
// waits is Oracle's artificial functions, each as long as the program
// measured its waits.
TEST_P(OmpTracing, UserModeShowsTheProgramAsWritten) {
  const json& truth = run_->truth;
  const auto rows = rows_in_mode(run_->experiment, "user");
  const auto objects = rows_in_mode(run_->experiment, "user", "-objects");
  EXPECT_FALSE(any_row_contains(rows, GetParam().body_marker)) << "an outlined body in user mode";
  EXPECT_FALSE(any_row_contains(objects, GetParam().library)) << "the runtime's frames in user mode";
  // The imbalanced region holds both threads' work (0.1 s + 0.4 s).
  const double imbalanced = truth.at("imbalanced_work").get<double>();
  EXPECT_GE(value(rows, "imbalanced_region", "i.totalcpu"), imbalanced - sampling_tolerance(imbalanced, kInterval));
  // Everything but the worker's idle time (and its start) is under main.
  const double total = value(rows, "<Total>", "i.totalcpu");
  EXPECT_NEAR(value(rows, "main", "i.totalcpu") + value(rows, "<OMP-idle>", "i.totalcpu"), total, 3 * kInterval);
  const std::pair<const char*, const char*> waits[] = {{"<OMP-implicit_barrier>", "region_end_wait"},
                                                       {"<OMP-explicit_barrier>", "explicit_barrier_wait"},
                                                       {"<OMP-lock_wait>", "lock_wait"},
                                                       {"<OMP-critical_section_wait>", "critical_wait"},
                                                       {"<OMP-idle>", "worker_outside_regions"}};
  for (const auto& [function, key] : waits) {
    const double waited = truth.at(key).get<double>();
    // The worker's own short waits at a region's end add a few samples.
    EXPECT_NEAR(value(rows, function, "e.totalcpu"), waited, sampling_tolerance(waited, kInterval) + 2 * kInterval)
        << function;
    EXPECT_EQ(value(rows, function, "e.ompwork"), 0.0) << function << " is wait only";
  }
}

TEST_P(OmpTracing, ExpertModeShowsTheOutlinedBodiesUnderTheirFunctions) {
  const auto rows = rows_in_mode(run_->experiment, "expert");
  const auto objects = rows_in_mode(run_->experiment, "expert", "-objects");
  EXPECT_FALSE(any_row_contains(objects, GetParam().library));
  const double imbalanced = run_->truth.at("imbalanced_work").get<double>();
  const std::string body = GetParam().imbalanced_body;
  ASSERT_TRUE(rows.count(body));
  EXPECT_NEAR(value(rows, body, "i.totalcpu"), imbalanced, sampling_tolerance(imbalanced, kInterval));
  // Its one caller of CPU time, on both threads, is the function holding
  // the region (a traced wait's event may add an edge of no CPU time).
  const json single =
      er_print_json({"-viewmode", "expert", "-metrics", "i.totalcpu:name", "-csingle", body}, run_->experiment);
  std::vector<std::string> callers;
  for (const json& caller : single.at("rows").at(0).at("callers"))
    if (caller.at("values").at("a.totalcpu").get<double>() > 0) callers.push_back(caller.at("name"));
  EXPECT_EQ(callers, std::vector<std::string>{"imbalanced_region"}) << single.dump();
}

TEST_P(OmpTracing, MachineModeShowsTheRuntimeAndEveryModeTheSameTotals) {
  const auto machine = rows_in_mode(run_->experiment, "machine");
  const auto objects = rows_in_mode(run_->experiment, "machine", "-objects");
  EXPECT_TRUE(any_row_contains(objects, GetParam().library)) << "the runtime's frames in machine mode";
  EXPECT_TRUE(any_row_contains(machine, GetParam().body_marker));
  EXPECT_EQ(value(machine, "<OMP-implicit_barrier>", "e.totalcpu"), 0.0) << "no stitching in machine mode";
  const auto user = rows_in_mode(run_->experiment, "user");
  const auto expert = rows_in_mode(run_->experiment, "expert");
  for (const char* metric : {"e.totalcpu", "e.ompwork", "e.ompwait", "e.omptwait"}) {
    EXPECT_EQ(value(user, "<Total>", metric), value(machine, "<Total>", metric)) << metric;
    EXPECT_EQ(value(expert, "<Total>", metric), value(machine, "<Total>", metric)) << metric;
  }
}

// The rows of `-source FUNCTION` in `mode` that are lines of the file.
std::vector<json> source_lines(const std::filesystem::path& experiment, const std::string& mode,
                               const std::string& function) {
  // The program's source where it is (a compiler cache may have recorded another tree's path).
  const json view = er_print_json({"-viewmode", mode, "-addpath", LUMEN_OMP_TARGETS_SOURCE_DIR, "-metrics",
                                   "e.totalcpu:i.totalcpu:name", "-source", function},
                                  experiment);
  std::vector<json> lines;
  for (const json& row : view.at("rows"))
    if (row.at("kind") == "line") lines.push_back(row);
  return lines;
}

// The first line from `from` on whose text holds `part`; lines.size() when none does.
size_t line_holding(const std::vector<json>& lines, const std::string& part, size_t from = 0) {
  for (size_t i = from; i < lines.size(); ++i)
    if (lines[i].at("name").get<std::string>().find(part) != std::string::npos) return i;
  return lines.size();
}

double cell(const json& row, const std::string& metric) { return row.at("values").at(metric).get<double>(); }

// User mode's source of the function holding a parallel region: the line
// of the region's body holds the work of both threads of the team (the
// outlined body keeps the region's line numbers), the construct's line
// the worker's part of the region too (machine mode gives it only the
// encountering thread's where the body is a function of its own, as gcc
// makes it), and the call in main the function's inclusive
// time. The program splits the region's work 0.1 s / 0.4 s.
// One session going from mode to mode and back shows each mode as a
// session of that mode alone: machine mode stitches nothing, user mode
// stitches the regions under their call sites.
TEST_P(OmpTracing, EveryModeInOneSessionIsAsInASessionOfItsOwn) {
  const std::vector<std::string> metrics{"-metrics", "e.totalcpu:i.totalcpu:i.ompwait:name"};
  std::vector<std::string> modes_in_turn = metrics;
  for (const char* mode : {"user", "machine", "user", "expert", "machine", "expert"})
    modes_in_turn.insert(modes_in_turn.end(), {"-viewmode", mode, "-functions", "-calltree"});
  const json views = er_print_json(modes_in_turn, run_->experiment);
  ASSERT_EQ(views.at("views").size(), 12u);
  size_t at = 0;
  for (const char* mode : {"user", "machine", "user", "expert", "machine", "expert"}) {
    std::vector<std::string> alone = metrics;
    alone.insert(alone.end(), {"-viewmode", mode, "-functions", "-calltree"});
    const json own = er_print_json(alone, run_->experiment);
    EXPECT_EQ(views.at("views").at(at), own.at("views").at(0)) << mode << " functions, view " << at;
    EXPECT_EQ(views.at("views").at(at + 1), own.at("views").at(1)) << mode << " calltree, view " << at + 1;
    at += 2;
  }
}

TEST_P(OmpTracing, UserModeSourceHoldsEveryThreadsWorkOnTheRegionsLines) {
  // clang writes no .debug_aranges: its lines are found all the same.
  const json lines = er_print_json({"-viewmode", "machine", "-lines"}, run_->experiment);
  ASSERT_NE(lines.dump().find("omp_target.c"), std::string::npos) << lines.dump();
  const double work = run_->truth.at("imbalanced_work").get<double>();
  const double worker_work = 0.8 * work;
  const auto user = source_lines(run_->experiment, "user", "imbalanced_region");
  const auto machine = source_lines(run_->experiment, "machine", "imbalanced_region");
  ASSERT_EQ(user.size(), machine.size());
  const size_t function = line_holding(user, "imbalanced_region(void)");
  const size_t body = line_holding(user, "timed_work(imbalanced_work", function);
  const size_t call = line_holding(user, "imbalanced_region();", line_holding(user, "int main(void)"));
  ASSERT_LT(body, user.size());
  ASSERT_LT(call, user.size());
  // The call starting the region is on the function's first line or the
  // construct's, as the compiler placed it: the busiest line before the body.
  size_t construct = function;
  for (size_t i = function; i < body; ++i)
    if (cell(user[i], "i.totalcpu") > cell(user[construct], "i.totalcpu")) construct = i;
  EXPECT_NEAR(cell(user[body], "i.totalcpu"), work, sampling_tolerance(work, kInterval));
  if (std::string(GetParam().name) == "libgomp") {
    EXPECT_NEAR(cell(user[construct], "i.totalcpu") - cell(machine[construct], "i.totalcpu"), worker_work,
                sampling_tolerance(worker_work, kInterval));
  } else {
    // clang's outlined function holds the body as an inlined call
    // (.omp_outlined._debug__) at the construct's line, so in machine mode
    // too every thread's work passes through that line.
    EXPECT_GE(cell(machine[construct], "i.totalcpu"), work - sampling_tolerance(work, kInterval));
    EXPECT_NEAR(cell(user[construct], "i.totalcpu"), cell(machine[construct], "i.totalcpu"),
                sampling_tolerance(worker_work, kInterval));
  }
  EXPECT_GE(cell(user[construct], "i.totalcpu"), work - sampling_tolerance(work, kInterval));
  const auto functions = rows_in_mode(run_->experiment, "user");
  EXPECT_NEAR(cell(user[call], "i.totalcpu"), value(functions, "imbalanced_region", "i.totalcpu"), 1e-6);
}

// In user mode no line or PC is the runtime's, the time of the artificial
// functions is exclusive to no line, and every mode has the same total.
TEST_P(OmpTracing, UserModeLinesHoldNoRuntimeAndNoArtificialTime) {
  const json lines = er_print_json({"-viewmode", "user", "-metrics", "e.totalcpu:i.totalcpu:name", "-lines"},
                                   run_->experiment);
  const json pcs = er_print_json({"-viewmode", "user", "-metrics", "e.totalcpu:name", "-pcs"}, run_->experiment);
  double on_lines = 0;
  for (const json& row : lines.at("rows")) {
    if (row.at("name") == "<Total>") continue;
    EXPECT_EQ(row.at("name").get<std::string>().rfind("<OMP-", 0), std::string::npos) << row.dump();
    on_lines += cell(row, "e.totalcpu");
  }
  for (const json& row : pcs.at("rows"))
    EXPECT_EQ(row.value("load_object", "").find(GetParam().library), std::string::npos) << row.dump();
  const auto functions = rows_in_mode(run_->experiment, "user");
  double artificial = 0;
  for (const auto& [name, row] : functions)
    if (name.rfind("<OMP-", 0) == 0) artificial += row.at("e.totalcpu").get<double>();
  const double total = value(functions, "<Total>", "e.totalcpu");
  EXPECT_GT(artificial, 0.0);
  EXPECT_LE(on_lines + artificial, total + 1e-6);
  for (const char* mode : {"user", "expert", "machine"})
    for (const char* view : {"-lines", "-pcs"})
      EXPECT_EQ(value(rows_in_mode(run_->experiment, mode, view), "<Total>", "e.totalcpu"), total) << mode << view;
}

INSTANTIATE_TEST_SUITE_P(Runtimes, OmpTracing, testing::ValuesIn(kRuntimes),
                         [](const testing::TestParamInfo<Runtime>& info) { return std::string(info.param.name); });

TEST(OmpTracingOff, OffFlagKeepsThePluginOut) {
  ActiveWaitPolicy policy;
  TempDir dir;
  const Collection run = collect(dir, {"-p", "on", "-omp", "off"}, LUMEN_OMP_TARGET);
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  EXPECT_FALSE(std::filesystem::exists(run.experiment / "omptrace"));
}

// gfortran's OpenMP reaches libgomp through the same GOMP_parallel: three
// regions at one call site in a module procedure, their imbalance as the
// program's wall clock (omp_get_wtime) saw it.
TEST(OmpTracingFortran, RegionsOfAFortranProgram) {
#ifndef LUMEN_OMP_FORTRAN_TARGET
  GTEST_SKIP() << "gfortran is not installed";
#else
  TempDir dir;
  const Collection run = collect(dir, {"-p", "on"}, LUMEN_OMP_FORTRAN_TARGET);
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  ASSERT_FALSE(run.truth.is_null());
  const json view = er_print_json({"-omp_preg"}, run.experiment);
  ASSERT_EQ(view.at("tables").size(), 1u) << view.dump();
  const auto rows = rows_by_name(view.at("tables")[0]);
  ASSERT_EQ(rows.size(), 1u) << view.dump();
  EXPECT_NE(rows.begin()->first.find("imbalanced_regions"), std::string::npos) << rows.begin()->first;
  const json& site = rows.begin()->second;
  EXPECT_EQ(site.at("count").get<double>(), run.truth.at("regions").get<double>());
  EXPECT_EQ(site.at("team").get<double>(), 2.0);
  const double imbalance = run.truth.at("imbalance").get<double>();
  EXPECT_NEAR(site.at("imbalance").get<double>(), imbalance, 0.003 + 0.02 * imbalance);
  // User mode: both threads' spinning (sampled CPU time; the program's
  // truth is wall time) is inside the subroutine holding the region;
  // machine mode shows the outlined body and libgomp instead.
  const auto find = [](const std::map<std::string, json>& rows, const std::string& part) {
    for (const auto& [name, row] : rows)
      if (name.find(part) != std::string::npos && name.find("._omp_fn.") == std::string::npos)
        return row.at("i.totalcpu").get<double>();
    return 0.0;
  };
  const auto user = rows_in_mode(run.experiment, "user");
  const auto machine = rows_in_mode(run.experiment, "machine");
  EXPECT_FALSE(any_row_contains(user, "._omp_fn."));
  const double spin = find(user, "spin_for");
  EXPECT_GT(spin, 0.0);
  EXPECT_GE(find(user, "imbalanced_regions") + 1e-9, spin);
  EXPECT_TRUE(any_row_contains(machine, "._omp_fn."));
  EXPECT_TRUE(any_row_contains(rows_in_mode(run.experiment, "machine", "-objects"), "libgomp.so"));
  EXPECT_EQ(value(user, "<Total>", "e.totalcpu"), value(machine, "<Total>", "e.totalcpu"));
#endif
}

#ifdef LUMEN_OMP_CLANG_TARGET
struct ScopedEnvironment {
  std::vector<std::string> names;
  void set(const std::string& name, const std::string& value) {
    setenv(name.c_str(), value.c_str(), 1);
    names.push_back(name);
  }
  ~ScopedEnvironment() {
    for (const std::string& name : names) unsetenv(name.c_str());
  }
};

// A tool the user names in OMP_TOOL_LIBRARIES still hears the runtime: the
// plugin's OMPT tool starts it and passes it every callback, and records
// the regions itself all the same.
TEST(OmpToolInterface, ChainsToTheToolInOmpToolLibraries) {
  TempDir dir;
  ScopedEnvironment environment;
  const std::filesystem::path counts = dir.path() / "counts.json";
  environment.set("OMP_TOOL_LIBRARIES", std::string("/nonexistent/libnotool.so:") + LUMEN_COUNTING_OMPT_TOOL);
  environment.set("COUNTING_TOOL_OUTPUT", counts.string());
  const Collection run = collect(dir, {"-p", "on"}, LUMEN_OMP_CLANG_TARGET);
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  std::ifstream in(counts);
  ASSERT_TRUE(in.good()) << "the chained tool wrote nothing";
  const json tool = json::parse(in);
  EXPECT_EQ(tool.at("regions").get<int>(), 4);
  EXPECT_EQ(tool.at("implicit_tasks").get<int>(), 8);
  const json view = er_print_json({"-omp_preg"}, run.experiment);
  EXPECT_EQ(view.at("summary").at("regions").get<double>(), 4.0) << view.dump();
}

// OMP_TOOL=disabled: no tool at all, as the runtime would have it; the
// program runs as ever.
TEST(OmpToolInterface, DisabledByOmpTool) {
  TempDir dir;
  ScopedEnvironment environment;
  environment.set("OMP_TOOL", "disabled");
  const Collection run = collect(dir, {"-p", "on"}, LUMEN_OMP_CLANG_TARGET);
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  EXPECT_FALSE(run.truth.is_null());
  const json view = er_print_json({"-omp_preg"}, run.experiment);
  EXPECT_EQ(view.at("summary").at("regions").get<double>(), 0.0) << view.dump();
}
#endif

}  // namespace
}  // namespace lumen::test
