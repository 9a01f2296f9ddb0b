// Synchronization wait tracing end to end: sync_target's threads make each
// other wait and measure every wait around the traced call; er_print's sync
// metrics per function and per object are compared with those measurements.
//
// What the comparison may honestly expect: the interposer's clock reads lie
// inside the target's, so each recorded wait is at most the target's
// measurement of it, and less by the cost of the call's way in and out
// (microseconds; more only if the thread was preempted right there, which
// the target also measures: its run delay during each wait, or if the
// collector worked there, e.g. set up a new thread's buffers on its first
// record, which the target measures too: a blocked thread uses no CPU, so
// its CPU time during the wait is that work). A wait the
// target measured at or below the threshold cannot have been recorded; one it
// measured well above (1 ms more) must have been.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr double kMargin = 0.001;  // a wait this far above the threshold is certainly recorded

std::string sync_target() { return LUMEN_SYNC_TARGET; }

double wait_tolerance(double truth) { return 0.002 + 0.02 * truth; }

// One wait as the target measured it: its length, how long of it the thread
// was runnable but not running, and the CPU time it used (both possibly
// outside the traced call).
struct Wait {
  double seconds = 0;
  double queued = 0;
  double cpu = 0;
};

// What one function's own measurements promise about its recorded waits.
struct Expected {
  size_t certain = 0;   // measured > threshold + margin: must be recorded
  size_t possible = 0;  // measured > threshold (all, at threshold 0): may be recorded
  double certain_seconds = 0;
  double certain_queued = 0;
  double certain_cpu = 0;
  double possible_seconds = 0;
};

Expected expected_for(const std::vector<Wait>& waits, double threshold) {
  Expected e;
  for (const Wait& w : waits) {
    if (threshold == 0 || w.seconds > threshold) {
      ++e.possible;
      e.possible_seconds += w.seconds;
    }
    if (threshold == 0 || w.seconds > threshold + kMargin) {
      ++e.certain;
      e.certain_seconds += w.seconds;
      e.certain_queued += w.queued;
      e.certain_cpu += w.cpu;
    }
  }
  return e;
}

std::vector<Wait> waits_of(const json& truth, const std::string& function) {
  const json& measured = truth.at("waits").at(function);
  const auto seconds = measured.at("seconds").get<std::vector<double>>();
  const auto queued = measured.at("queued").get<std::vector<double>>();
  const auto cpu = measured.at("cpu").get<std::vector<double>>();
  std::vector<Wait> waits;
  for (size_t i = 0; i < seconds.size(); ++i)
    waits.push_back({seconds[i], i < queued.size() ? queued[i] : 0.0, i < cpu.size() ? cpu[i] : 0.0});
  return waits;
}

// The recorded time of one measured wait: at most the measurement, less by
// the way in and out, by any preemption the target saw around the call and
// by the CPU time the thread used around it.
void expect_recorded(double recorded, const Wait& w, const std::string& what) {
  EXPECT_LE(recorded, w.seconds + wait_tolerance(w.seconds)) << what;
  EXPECT_GE(recorded, w.seconds - w.queued - w.cpu - wait_tolerance(w.seconds))
      << what << ", queued " << w.queued << " s, on CPU " << w.cpu << " s";
}

double value(const std::map<std::string, json>& rows, const std::string& name, const std::string& key) {
  const auto row = rows.find(name);
  return row == rows.end() ? 0.0 : row->second.at(key).get<double>();
}

// Recorded count and time of one function (or object) against its truth.
void expect_matches(double count, double seconds, const Expected& e, const std::string& what) {
  EXPECT_GE(count, static_cast<double>(e.certain)) << what << ": a wait well above the threshold was not recorded";
  EXPECT_LE(count, static_cast<double>(e.possible)) << what << ": more waits recorded than the target made";
  EXPECT_GE(seconds, e.certain_seconds - e.certain_queued - e.certain_cpu - wait_tolerance(e.certain_seconds))
      << what << ", queued " << e.certain_queued << " s, on CPU " << e.certain_cpu << " s";
  EXPECT_LE(seconds, e.possible_seconds + wait_tolerance(e.possible_seconds)) << what;
}

json sync_objects(const fs::path& experiment) { return er_print_json({"-syncobjects"}, experiment); }

double threshold_seconds(const json& objects) {
  return objects.at("summary").at("threshold_ns").get<double>() / 1e9;
}

std::map<std::string, json> function_rows(const fs::path& experiment) {
  return rows_by_name(er_print_json({"-metrics", "e.sync:e.syncn:i.sync:i.syncn:name", "-functions"}, experiment));
}

// The row of -syncobjects whose name is "KIND 0xADDRESS SYMBOL".
const json* object_row(const json& objects, const std::string& kind, const std::string& symbol) {
  for (const json& row : objects.at("tables").at(0).at("rows")) {
    const std::string name = row.at("name");
    std::istringstream words(name);
    std::string k, address, s;
    words >> k >> address >> s;
    if (k == kind && s == symbol && address.rfind("0x", 0) == 0) return &row;
  }
  return nullptr;
}

// The stacks table of the object named `name`.
const json* stacks_of(const json& objects, const std::string& name) {
  for (const json& table : objects.at("tables"))
    if (table.at("title") == "Stacks waiting on " + name) return &table;
  return nullptr;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// ---- the six kinds of wait, in one run under collect -s on ----

const char* const kScenarioFunctions[] = {
    "wait_for_hold_lock", "wait_for_item",     "wait_to_read",       "wait_to_read_timed",
    "wait_to_write",      "wait_on_semaphore", "wait_on_semaphore_timed", "wait_at_barrier",
    "arrive_late",        "join_long_thread",
};

class SyncAll : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    run_ = new Collection(collect(*dir_, {"-s", "on"}, sync_target(), {"all"}));
    if (run_->run.exit_code == 0) objects_ = new json(sync_objects(run_->experiment));
  }
  static void TearDownTestSuite() {
    delete objects_;
    delete run_;
    delete dir_;
    objects_ = nullptr;
  }
  void SetUp() override {
    ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
    ASSERT_NE(objects_, nullptr);
  }
  static TempDir* dir_;
  static Collection* run_;
  static json* objects_;
};
TempDir* SyncAll::dir_ = nullptr;
Collection* SyncAll::run_ = nullptr;
json* SyncAll::objects_ = nullptr;

TEST_F(SyncAll, TargetOutputIsUnchanged) {
  EXPECT_EQ(run_->run.out, "sync_target done\n");
  EXPECT_EQ(run_->run.out, run_process({sync_target(), "all"}).out);
}

TEST_F(SyncAll, CalibratedThresholdIsInTheLogAndTheView) {
  const double threshold = threshold_seconds(*objects_);
  EXPECT_GT(threshold, 0.0);
  EXPECT_EQ(objects_->at("summary").at("calibrated"), 1);
  const std::string log = read_file(run_->experiment / "collector.log");
  EXPECT_NE(log.find("sync: threshold " + std::to_string(static_cast<long long>(threshold * 1e9 + 0.5)) +
                     " ns, calibrated"),
            std::string::npos)
      << log;
  const auto header = er_print_json({"-header"}, run_->experiment);
  EXPECT_NE(header.dump().find("threshold=calibrate"), std::string::npos) << header.dump();
}

TEST_F(SyncAll, EachWaitingFunctionMatchesItsOwnMeasurement) {
  const double threshold = threshold_seconds(*objects_);
  const auto rows = function_rows(run_->experiment);
  for (const char* function : kScenarioFunctions) {
    const std::vector<Wait> waits = waits_of(run_->truth, function);
    ASSERT_FALSE(waits.empty()) << function << " measured no wait";
    const Expected e = expected_for(waits, threshold);
    const double count = value(rows, function, "i.syncn");
    const double seconds = value(rows, function, "i.sync");
    expect_matches(count, seconds, e, function);
    // The waiting call is the leaf, the function its caller.
    EXPECT_EQ(value(rows, function, "e.syncn"), 0.0) << function;
  }
  // The scenarios make waits far above a calibrated threshold.
  EXPECT_EQ(value(rows, "wait_for_hold_lock", "i.syncn"), 9.0);
  EXPECT_EQ(value(rows, "join_long_thread", "i.syncn"), 1.0);
  EXPECT_GT(value(rows, "wait_for_hold_lock", "i.sync"), 9 * 0.030);
}

TEST_F(SyncAll, CallersInheritTheWaitsOfTheirCallees) {
  const auto rows = function_rows(run_->experiment);
  EXPECT_GE(value(rows, "mutex_waiter", "i.sync") + 1e-9, value(rows, "wait_for_hold_lock", "i.sync"));
  EXPECT_GE(value(rows, "barrier_party", "i.syncn"), value(rows, "wait_at_barrier", "i.syncn"));
  double measured = 0;
  for (const char* function : kScenarioFunctions) measured += value(rows, function, "i.sync");
  EXPECT_GE(value(rows, "<Total>", "i.sync") + 1e-9, measured);
  EXPECT_NEAR(value(rows, "<Total>", "i.sync"), objects_->at("summary").at("wait").get<double>(), 1e-6);
  EXPECT_EQ(value(rows, "<Total>", "i.syncn"), objects_->at("summary").at("count").get<double>());
}

// As Oracle and gprofng show them: the traced call (pthread_mutex_lock,
// pthread_join, sem_wait, ...) is the leaf of its event's stack, a row of
// its own holding every wait exclusively; the interposer never shows.
TEST_F(SyncAll, TracedCallIsTheLeafAndNoInterposerFrameAppears) {
  const auto view = er_print_json({"-metrics", "e.syncn:e.sync:name", "-functions"}, run_->experiment);
  double calls = 0, total = 0;
  for (const json& row : view.at("rows")) {
    const std::string name = row.at("name");
    EXPECT_EQ(name.find("lumen"), std::string::npos) << name;
    if (row.contains("load_object")) {
      EXPECT_NE(row.at("load_object"), "collector.so") << name;
    }
    const double count = row.at("values").at("e.syncn").get<double>();
    if (name == "<Total>") total = count;
    else if (name.rfind("pthread_", 0) == 0 || name.rfind("sem_", 0) == 0) calls += count;
    else EXPECT_EQ(count, 0.0) << name << " is no traced call";
  }
  EXPECT_GT(total, 0.0);
  EXPECT_EQ(calls, total);
  const auto rows = function_rows(run_->experiment);
  EXPECT_GE(value(rows, "pthread_mutex_lock", "e.syncn"), value(rows, "wait_for_hold_lock", "i.syncn"));
  EXPECT_GE(value(rows, "pthread_join", "e.syncn"), value(rows, "join_long_thread", "i.syncn"));
}

TEST_F(SyncAll, SyncObjectsNameTheirVariablesAndMatchTheMeasurements) {
  const double threshold = threshold_seconds(*objects_);
  std::map<std::pair<std::string, std::string>, std::vector<Wait>> by_object;  // (kind, symbol) -> waits
  for (const char* function : kScenarioFunctions) {
    const json& t = run_->truth.at("waits").at(function);
    auto& waits = by_object[{t.at("kind"), t.at("object")}];
    for (const Wait& w : waits_of(run_->truth, function)) waits.push_back(w);
  }
  for (const auto& [object, waits] : by_object) {
    const auto& [kind, symbol] = object;
    if (symbol.empty()) continue;  // a joined thread is no variable
    const json* row = object_row(*objects_, kind, symbol);
    ASSERT_NE(row, nullptr) << kind << " " << symbol << " is not a row of -syncobjects: " << objects_->dump();
    expect_matches(row->at("values").at("count").get<double>(), row->at("values").at("wait").get<double>(),
                   expected_for(waits, threshold), kind + " " + symbol);
  }
  bool join_row = false;
  for (const json& row : objects_->at("tables").at(0).at("rows"))
    join_row = join_row || row.at("name").get<std::string>().rfind("join 0x", 0) == 0;
  EXPECT_TRUE(join_row) << "the join of the long thread is an object of kind join";
}

TEST_F(SyncAll, SyncObjectsShowTheStacksThatWaited) {
  const json* row = object_row(*objects_, "mutex", "g_hold_lock");
  ASSERT_NE(row, nullptr);
  const json* stacks = stacks_of(*objects_, row->at("name"));
  ASSERT_NE(stacks, nullptr);
  ASSERT_FALSE(stacks->at("rows").empty());
  const json& top = stacks->at("rows").at(0);
  ASSERT_FALSE(top.at("stack").empty());
  EXPECT_EQ(top.at("stack").at(0).at("function"), "wait_for_hold_lock") << top.dump();
  EXPECT_EQ(top.at("stack").at(1).at("function"), "mutex_waiter") << top.dump();
  // The static rwlock is named too, and its stacks hold the three waiters.
  const json* rwlock = object_row(*objects_, "rwlock", "g_table_lock");
  ASSERT_NE(rwlock, nullptr);
  std::set<std::string> leaves;
  for (const json& s : stacks_of(*objects_, rwlock->at("name"))->at("rows")) leaves.insert(s.at("stack").at(0).at("function"));
  EXPECT_TRUE(leaves.count("wait_to_read") && leaves.count("wait_to_read_timed") && leaves.count("wait_to_write"))
      << rwlock->dump();
}

// ---- thresholds ----

TEST(SyncThreshold, GivenInMicrosecondsSkipsShortWaitsAndKeepsLongOnes) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "off", "-s", "5000"}, sync_target(), {"threshold"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const json objects = sync_objects(c.experiment);
  EXPECT_EQ(objects.at("summary").at("threshold_ns"), 5'000'000);
  const auto rows = function_rows(c.experiment);
  const std::vector<Wait> short_waits = waits_of(c.truth, "wait_short");
  const std::vector<Wait> long_waits = waits_of(c.truth, "wait_long");
  ASSERT_EQ(short_waits.size(), 3u);
  ASSERT_EQ(long_waits.size(), 3u);
  const Expected s = expected_for(short_waits, 0.005), l = expected_for(long_waits, 0.005);
  expect_matches(value(rows, "wait_short", "i.syncn"), value(rows, "wait_short", "i.sync"), s, "wait_short");
  expect_matches(value(rows, "wait_long", "i.syncn"), value(rows, "wait_long", "i.sync"), l, "wait_long");
  EXPECT_EQ(l.certain, 3u) << "the ~50 ms waits are well above 5 ms";
  for (const Wait& w : short_waits)  // unless the machine kept the thread off its CPU
    EXPECT_LT(w.seconds - w.queued, 0.005) << "the ~0.5 ms waits stay below 5 ms";
}

TEST(SyncThreshold, AllRecordsEveryUncontendedCall) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "off", "-s", "all"}, sync_target(), {"uncontended"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(sync_objects(c.experiment).at("summary").at("threshold_ns"), 0);
  const auto rows = function_rows(c.experiment);
  const std::vector<Wait> waits = waits_of(c.truth, "lock_uncontended");
  ASSERT_EQ(waits.size(), 1000u);
  EXPECT_EQ(value(rows, "lock_uncontended", "i.syncn"), 1000.0);
  double measured = 0;
  for (const Wait& w : waits) measured += w.seconds;
  EXPECT_LE(value(rows, "lock_uncontended", "i.sync"), measured + 1e-9) << "zero-ish waits";
}

// Every call of every thread recorded, nothing lost, so nothing is counted
// as dropped: the locks libunwind takes in a thread's data destructors,
// after the thread's end, are not the program's.
TEST(SyncThreshold, AllCountsNoDropWhenNothingIsMissing) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "off", "-s", "all"}, sync_target(), {"all"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const std::string log = read_file(c.experiment / "collector.log");
  EXPECT_NE(log.find("dropped_records: 0}"), std::string::npos) << log;
}

TEST(SyncThreshold, CalibratedThresholdRecordsNoUncontendedCall) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "off", "-s", "on"}, sync_target(), {"uncontended"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto rows = function_rows(c.experiment);
  EXPECT_EQ(value(rows, "lock_uncontended", "i.syncn"), 0.0);
  EXPECT_EQ(value(rows, "<Total>", "i.syncn"), 0.0);
}

// A threshold that is not one, on the command line or in a profile, is
// refused by collect with the syntax before the target starts, like every
// other bad option; nothing is recorded, nothing runs.
TEST(SyncThreshold, AnInvalidValueIsRefusedBeforeTheTargetStarts) {
  TempDir profiles;
  const fs::path profile = profiles.path() / "bad-sync.yaml";
  std::ofstream(profile) << "plugins:\n  sync:\n    threshold: banana\n";
  const std::vector<std::vector<std::string>> refused = {
      {"-s", "banana"}, {"-s", "-4"}, {"-s", "nan"}, {"-s", "soon"}, {"--profile", profile.string()}};
  for (const auto& options : refused) {
    SCOPED_TRACE(options.back());
    TempDir dir;
    std::vector<std::string> args{"-p", "off"};
    args.insert(args.end(), options.begin(), options.end());
    const Collection c = collect(dir, args, sync_target(), {"join"});
    EXPECT_EQ(c.run.exit_code, 2) << c.run.err;
    EXPECT_NE(c.run.err.find("is not 'calibrate'"), std::string::npos) << c.run.err;
    EXPECT_EQ(c.run.out, "") << "the target ran";
    EXPECT_FALSE(fs::exists(c.experiment / "synctrace"));
  }
}

// ---- behaviour of the target ----

TEST(SyncBehaviour, TimedlockTimingOutStillReturnsEtimedoutAndIsRecorded) {
  const ProcessResult plain = run_process({sync_target(), "timedlock"});
  TempDir dir;
  const Collection c = collect(dir, {"-s", "on"}, sync_target(), {"timedlock"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(plain.out, "pthread_mutex_timedlock while held: ETIMEDOUT\nsync_target done\n");
  EXPECT_EQ(c.run.out, plain.out);
  const auto rows = function_rows(c.experiment);
  const std::vector<Wait> waits = waits_of(c.truth, "timedlock_times_out");
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(value(rows, "timedlock_times_out", "i.syncn"), 1.0);
  expect_recorded(value(rows, "timedlock_times_out", "i.sync"), waits[0], "timedlock_times_out");
}

TEST(SyncBehaviour, ReturnValuesErrnoCancellationAndExitStatusAreUnchanged) {
  const ProcessResult plain = run_process({sync_target(), "semantics"});
  ASSERT_EQ(plain.exit_code, 17) << plain.err;
  for (const char* line : {"errorcheck relock: EDEADLK\n", "errorcheck timedlock by owner: EDEADLK\n",
                           "errorcheck unlock again: EPERM\n", "recursive lock again: 0\n",
                           "recursive unlock a third time: EPERM\n", "robust lock after owner died: EOWNERDEAD\n",
                           "clocklock with a CPU-time clock: EINVAL\n", "trylock after it: 0\n",
                           "rwlock rdlock by the writer: EDEADLK\n", "rwlock wrlock by the writer: EDEADLK\n",
                           "join self: EDEADLK\n",
                           "sem_timedwait with bad nanoseconds on an available semaphore: -1 EINVAL, value 1\n",
                           "sem_timedwait on an empty semaphore: -1 ETIMEDOUT\n", "sem_wait keeps errno: 0 4242\n",
                           "contended lock keeps errno: 0 4343\n", "sem_wait with a cancel pending: cancelled, value 1\n",
                           "pthread_cond_wait cancelled: yes, mutex free: yes\n"})
    EXPECT_NE(plain.out.find(line), std::string::npos) << "without collect: " << line;
  for (const char* threshold : {"on", "all"}) {
    TempDir dir;
    const Collection c = collect(dir, {"-s", threshold}, sync_target(), {"semantics"});
    EXPECT_EQ(c.run.exit_code, 17) << threshold << ": " << c.run.err;
    EXPECT_EQ(c.run.out, plain.out) << threshold;
  }
}

TEST(SyncBehaviour, CombinesWithClockProfilingInOneExperiment) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "on", "-s", "on"}, sync_target(), {"combined"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto rows =
      rows_by_name(er_print_json({"-metrics", "e.totalcpu:i.sync:i.syncn:name", "-functions"}, c.experiment));
  const double cpu = c.truth.at("cpu").at("burn_holding_lock").get<double>();
  EXPECT_NEAR(value(rows, "burn_holding_lock", "e.totalcpu"), cpu, sampling_tolerance(cpu, 0.010));
  const std::vector<Wait> waits = waits_of(c.truth, "wait_for_burner");
  ASSERT_EQ(waits.size(), 1u);
  EXPECT_EQ(value(rows, "wait_for_burner", "i.syncn"), 1.0);
  expect_recorded(value(rows, "wait_for_burner", "i.sync"), waits[0], "wait_for_burner");
  EXPECT_EQ(value(rows, "wait_for_burner", "e.totalcpu"), 0.0) << "it slept in the lock";
}

TEST(SyncBehaviour, ShippedProfileTracesWithClockProfiling) {
  TempDir dir;
  const Collection c = collect(dir, {"--profile", "sync"}, sync_target(), {"join"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const std::string header = er_print_json({"-header"}, c.experiment).dump();
  EXPECT_NE(header.find("threshold=calibrate"), std::string::npos) << header;
  EXPECT_NE(header.find("interval=10.000 ms"), std::string::npos) << header;
  const auto rows = function_rows(c.experiment);
  EXPECT_EQ(value(rows, "join_long_thread", "i.syncn"), 1.0);
}

}  // namespace
}  // namespace lumen::test
