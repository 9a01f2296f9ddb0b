// collect -P on a process that already runs: attach_target measures each
// function's CPU time as it goes; collect attaches for a window, and the
// experiment's figures equal what the target spent between the attach and
// the detach, within the sampling tolerance (threads the target creates
// while attached included), and its main thread's time off the CPU is the
// window's. After the detach the target runs on, and its
// own checks of its handlers, mask, descriptors and sleeps pass when it
// exits with its own status; nothing of the collector stays mapped. A
// second attach works, and a library the target loads while attached is
// recorded, and a program with its own malloc, locked by a busy thread,
// is attached to, sampled and detached from. Refusals name the reason: a
// process that is gone,
// one another tracer holds, a statically linked one, and a data type that
// needs the program's calls from its start.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

#include "background_process.h"
#include "lumen_commands.h"

namespace lumen::test {
namespace {

using nlohmann::json;

json read_truth(const std::filesystem::path& file) {
  std::ifstream in(file);
  return json::parse(in).at("functions");
}

ProcessResult collect_attached(const TempDir& dir, const std::string& name, pid_t pid,
                               const std::vector<std::string>& extra = {}) {
  std::vector<std::string> argv{(bin_dir() / "collect").string(), "-o", name, "-d", dir.path().string()};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.insert(argv.end(), {"-P", std::to_string(pid)});
  return run_process(argv);
}

bool maps_collector(pid_t pid) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find("liblumen_collector") != std::string::npos || line.find("/lumen/plugins/") != std::string::npos)
      return true;
  return false;
}

class Attach : public ::testing::Test {
 protected:
  void SetUp() override {
    std::vector<std::string> argv{(target_dir() / target_name()).string(), dir_.path().string()};
    if (with_library()) argv.push_back((target_dir() / "libburn_library.so").string());
    std::map<std::string, std::string> environment = target_environment();
    environment["LUMEN_TEST_TRUTH"] = truth_file().string();
    target_ = std::make_unique<Background>(argv, environment);
    ASSERT_TRUE(wait_for_file(dir_.path() / "ready", std::chrono::seconds(10)));
    ASSERT_TRUE(wait_for_file(truth_file(), std::chrono::seconds(10)));
  }
  virtual bool with_library() const { return false; }
  virtual std::map<std::string, std::string> target_environment() const { return {}; }
  virtual const char* target_name() const { return "attach_target"; }
  std::filesystem::path truth_file() const { return dir_.path() / "truth.json"; }
  // Tells the target to stop; its exit status (3: its own checks passed).
  int stop_target() {
    std::ofstream(dir_.path() / "stop").put('\n');
    return target_->wait_exit(std::chrono::seconds(20));
  }
  TempDir dir_;
  std::unique_ptr<Background> target_;
};

TEST_F(Attach, TheWindowsFiguresAreWhatTheTargetSpentAndItRunsOnUnharmed) {
  const json before = read_truth(truth_file());
  // No archive: collect's copying after the detach (0.8 s here) is time the
  // target runs on outside the experiment, which the truth read after holds.
  const ProcessResult run = collect_attached(dir_, "window.er", target_->pid(), {"-A", "off", "-t", "3"});
  const auto ended = std::chrono::steady_clock::now();
  // The target rewrites its truth at each tick: the one after the detach
  // holds all the experiment does, and up to the wait for it more.
  const auto detached = std::filesystem::file_time_type::clock::now();
  const auto waited_from = std::chrono::steady_clock::now();
  for (int i = 0; i < 200 && std::filesystem::last_write_time(truth_file()) <= detached; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - waited_from).count();
  const json after = read_truth(truth_file());
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("attached to process"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("detached from process"), std::string::npos) << run.err;
  EXPECT_FALSE(maps_collector(target_->pid())) << "the collector is still mapped after the detach";
  const auto experiment = dir_.path() / "window.er";
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu", "-limit", "0", "-functions"}, experiment));
  // The truth is read just before collect starts and after it ends: it
  // also holds what the target spent while collect attached and detached
  // (the times collect reports) and after, while collect finished the
  // experiment, up to a tick (0.1 s) and the wait for the next, each of its
  // four busy threads.
  const double slack = 4 * (0.1 + waited + seconds_after_detach(experiment, ended) +
                            reported_seconds(run.err, "attached to process") +
                            reported_seconds(run.err, "detached from process"));
  // The workers' time (hot_a and hot_b, which a sample's skid on a loaded
  // machine shares out between them), and the short-lived threads' (hot_c).
  auto spent = [&](const json& truth, const char* function) {
    return std::string(function) == "worker" ? truth.at("hot_a").get<double>() + truth.at("hot_b").get<double>()
                                             : truth.at(function).get<double>();
  };
  for (const char* function : {"worker", "hot_c"}) {
    const double truth = spent(after, function) - spent(before, function);
    ASSERT_TRUE(rows.count(function)) << function << " is missing: threads created while attached count too";
    const double measured = rows.at(function).at("i.totalcpu").get<double>();
    EXPECT_LE(measured, truth + sampling_tolerance(truth, 0.01)) << function;
    EXPECT_GE(measured, truth - sampling_tolerance(truth, 0.01) - slack) << function;
  }
  // The off-CPU states came with the clock: every state of the main
  // thread (asleep, joining, waiting for a CPU) adds up to the window (-t 3:
  // three seconds from just before the attach).
  const json main_thread = rows_by_name(er_print_json({"-filters", "THRID == 1", "-metrics", "i.total:i.sleep",
                                                       "-functions"}, experiment)).at("<Total>");
  EXPECT_NEAR(main_thread.at("i.total").get<double>(), 3.0, 0.4) << main_thread.dump();
  EXPECT_GT(main_thread.at("i.sleep").get<double>(), 0.0) << main_thread.dump();  // a loaded machine adds CPU wait
  const json header = er_print_json({"-header"}, experiment);
  EXPECT_NE(header.dump().find("still running when collect detached"), std::string::npos) << header.dump();
  EXPECT_NE(header.dump().find("collect -P"), std::string::npos) << header.dump();
  // Attached again, and detached again.
  const ProcessResult again = collect_attached(dir_, "again.er", target_->pid(), {"-t", "1"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_GT(rows_by_name(er_print_json({"-metrics", "e.totalcpu", "-functions"}, dir_.path() / "again.er"))
                .at("<Total>")
                .at("e.totalcpu")
                .get<double>(),
            0.0)
      << again.err;
  EXPECT_FALSE(maps_collector(target_->pid())) << again.err;
  EXPECT_EQ(stop_target(), 3) << "the target's own checks failed (its standard error names them)";
}

// The target with a library to load (once DIR/load appears).
// Waits until the experiment's log says `what` (collect's own messages
// come when it returns): collection runs by default.
bool wait_until_recording(const std::filesystem::path& experiment, const std::string& what = "event: plugin_started") {
  for (int i = 0; i < 1000; ++i) {
    std::ifstream log(experiment / "collector.log");
    std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    if (text.find(what) != std::string::npos) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

// collect -P with `flags` in the background; once the process's calls lead
// to the tracing plugins, `trigger` is created in `dir` and collect runs on
// to its end. False when the calls were never redirected or the target
// did not create `answer` in `dir`.
bool attach_and_trigger(const TempDir& dir, pid_t pid, const std::string& name, const std::vector<std::string>& flags,
                        const std::string& trigger, const std::string& answer, ProcessResult* run) {
  std::thread attached([&] { *run = collect_attached(dir, name, pid, flags); });
  const bool interposing = wait_until_recording(dir.path() / name, "lead to the tracing plugins' interposers");
  std::ofstream(dir.path() / trigger).put('\n');
  const bool answered = wait_for_file(dir.path() / answer, std::chrono::seconds(10));
  attached.join();
  if (!interposing || !answered) {
    std::ifstream log(dir.path() / name / "collector.log");
    std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    run->err += std::string(!interposing ? "the log never said the calls were redirected"
                                         : "the target never answered " + answer) +
                (std::filesystem::exists(dir.path() / trigger) ? " (it never took " + trigger + ")" : "") +
                "; the experiment's log:\n" + text;
  }
  return interposing && answered;
}

class AttachWithLibrary : public Attach {
 protected:
  bool with_library() const override { return true; }
};

// The target's time in its library until `until_ns` (CLOCK_MONOTONIC): the
// last line of its DIR/in_library stamped before then (one line a burn).
double library_seconds_until(const std::filesystem::path& lines, uint64_t until_ns) {
  std::ifstream in(lines);
  uint64_t at = 0, total = 0, before = 0;
  while (in >> at >> total)
    if (at <= until_ns) before = total;
  return static_cast<double>(before) / 1e9;
}

// A library the target loads while attached: its function is named, its
// time is what the target spent there while collect was attached, and the
// collector still unloads. Loaded once collect says every thread's
// collection began, and counted until the log's detach: what the target
// burns before its thread is begun or while collect finishes the
// experiment after the detach is no part of the window.
TEST_F(AttachWithLibrary, ALibraryLoadedWhileAttachedIsRecorded) {
  const auto said = dir_.path() / "collect.err";
  Background collect({"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>\"$LUMEN_TEST_ERR\"", (bin_dir() / "collect").string(),
                      "-o", "library.er", "-d", dir_.path().string(), "-t", "4", "-P", std::to_string(target_->pid())},
                     {{"LUMEN_TEST_ERR", said.string()}});
  const auto collect_said = [&] {
    std::ifstream err(said);
    return std::string((std::istreambuf_iterator<char>(err)), std::istreambuf_iterator<char>());
  };
  bool begun = false;
  for (int i = 0; i < 1000 && !begun; ++i) {
    begun = collect_said().find("attached to process") != std::string::npos;
    if (!begun) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::ofstream(dir_.path() / "load").put('\n');
  const int status = collect.wait_exit(std::chrono::seconds(60));
  ASSERT_TRUE(begun) << collect_said();
  ASSERT_EQ(status, 0) << collect_said();
  const uint64_t detached = logged_detach_ns(dir_.path() / "library.er");
  ASSERT_NE(detached, 0u) << "the log names no detach";
  const double truth = library_seconds_until(dir_.path() / "in_library", detached);
  ASSERT_GT(truth, 0.1) << "the target did not load the library while attached";
  const auto rows = rows_by_name(
      er_print_json({"-metrics", "i.totalcpu", "-limit", "0", "-functions"}, dir_.path() / "library.er"));
  ASSERT_TRUE(rows.count("burn_in_library")) << "the library's function is not named";
  const double measured = rows.at("burn_in_library").at("i.totalcpu").get<double>();
  // The burn under way at the detach is partly recorded: up to 50 ms more.
  EXPECT_NEAR(measured, truth, sampling_tolerance(truth, 0.01) + 0.1);
  EXPECT_FALSE(maps_collector(target_->pid())) << "collect said: " << collect_said();
  EXPECT_EQ(stop_target(), 3);
}

// A program that has libstdc++ of its own: the runtime's libraries are
// unloaded with it, and the program's threads that collection sampled end
// after the detach with nothing of them left to run (libunwind's
// per-thread key once was).
class AttachToCxx : public Attach {
 protected:
  const char* target_name() const override { return "attach_target_cxx"; }
};

TEST_F(AttachToCxx, ItsThreadsEndAfterTheDetachAsWithout) {
  const ProcessResult run = collect_attached(dir_, "cxx.er", target_->pid(), {"-t", "1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_FALSE(maps_collector(target_->pid())) << run.err;
  EXPECT_EQ(stop_target(), 3) << "the workers end at the stop, after the detach";
}

TEST_F(Attach, ASignalToCollectDetaches) {
  const pid_t collect_pid = fork();
  if (collect_pid == 0) {
    const std::string collect = (bin_dir() / "collect").string();
    execl(collect.c_str(), collect.c_str(), "-o", "signalled.er", "-d", dir_.path().c_str(), "-P",
          std::to_string(target_->pid()).c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  ASSERT_TRUE(wait_for_file(dir_.path() / "signalled.er" / "profile", std::chrono::seconds(10)));
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  kill(collect_pid, SIGTERM);
  int status = 0;
  waitpid(collect_pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_FALSE(maps_collector(target_->pid()));
  EXPECT_EQ(stop_target(), 3);
}

TEST_F(Attach, DataThatNeedsTheProgramsStartIsRefused) {
  const ProcessResult run = collect_attached(dir_, "mpi.er", target_->pid(), {"-m", "on"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("mpi"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("needs the program's calls from its start"), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "mpi.er"));
  EXPECT_EQ(stop_target(), 3);
}

// Heap, sync and I/O tracing after an attach: the program's bound calls
// lead to the plugins' interposers while attached and back after. The
// round of calls the target makes while attached is counted exactly: its
// allocations and bytes, the blocks it still holds at the detach (the
// window's leaks), its locks, its writes and bytes; its frees of blocks
// allocated before the attach are no error and weigh nothing. A second
// attach with the same tracing works, and the target runs on unharmed.
// The traced calls of the target's last round (DIR/round.json), as
// `experiment` counts them: exactly.
void expect_round_recorded(const TempDir& dir, const std::string& experiment) {
  std::ifstream round_file(dir.path() / "round.json");
  const json round = json::parse(round_file);
  const auto rows = rows_by_name(er_print_json(
      {"-metrics",
       "i.heapalloccnt:i.heapallocbytes:i.heapleakcnt:i.heapleakbytes:i.syncn:i.iowritecnt:i.iowritebytes:name",
       "-limit", "0", "-functions"},
      dir.path() / experiment));
  ASSERT_TRUE(rows.count("allocate_round") && rows.count("lock_round") && rows.count("write_round"))
      << "the round's functions are not in the experiment";
  const json& allocate = rows.at("allocate_round");
  EXPECT_EQ(allocate.at("i.heapalloccnt").get<long long>(), round.at("allocations").get<long long>());
  EXPECT_EQ(allocate.at("i.heapallocbytes").get<long long>(), round.at("allocated_bytes").get<long long>());
  EXPECT_EQ(allocate.at("i.heapleakcnt").get<long long>(), round.at("kept").get<long long>());
  EXPECT_EQ(allocate.at("i.heapleakbytes").get<long long>(), round.at("kept_bytes").get<long long>());
  EXPECT_EQ(rows.at("lock_round").at("i.syncn").get<long long>(), round.at("locks").get<long long>());
  EXPECT_EQ(rows.at("write_round").at("i.iowritecnt").get<long long>(), round.at("writes").get<long long>());
  EXPECT_EQ(rows.at("write_round").at("i.iowritebytes").get<long long>(), round.at("written_bytes").get<long long>());
}

TEST_F(Attach, TracingCountsTheCallsMadeWhileAttachedExactly) {
  const std::vector<std::string> tracing{"-H", "on", "-s", "all", "-i", "on"};
  std::vector<std::string> flags = tracing;
  flags.insert(flags.end(), {"-t", "3"});
  ProcessResult run;
  ASSERT_TRUE(attach_and_trigger(dir_, target_->pid(), "traced.er", flags, "go", "done", &run)) << run.err;
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_NE(run.err.find("detached"), std::string::npos) << run.err;
  expect_round_recorded(dir_, "traced.er");
  EXPECT_FALSE(maps_collector(target_->pid())) << run.err;

  const ProcessResult again = collect_attached(dir_, "again.er", target_->pid(), [&] {
    std::vector<std::string> f = tracing;
    f.insert(f.end(), {"-t", "1"});
    return f;
  }());
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_FALSE(maps_collector(target_->pid())) << again.err;
  EXPECT_EQ(stop_target(), 3);
}

// A thread that began a wait while attached (through the sync plugin's
// interposer) and still waits at the detach: the collector cannot be
// unloaded under it. It stays loaded, inert, collect says why, and the
// wait ends later through the interposer without harm. A second attach
// meanwhile is refused with the reason (a runtime starts once per load);
// once the wait ended, a third one unloads what the first left and counts
// its round exactly.
TEST_F(Attach, AWaitUnderwayAtTheDetachKeepsTheCollectorLoadedAndInert) {
  ProcessResult run;
  ASSERT_TRUE(attach_and_trigger(dir_, target_->pid(), "waiting.er", {"-s", "all", "-t", "3"}, "wait", "waiting", &run))
      << run.err;
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("still inside a traced call"), std::string::npos) << run.err;
  EXPECT_TRUE(maps_collector(target_->pid())) << run.err;

  const ProcessResult refused = collect_attached(dir_, "refused.er", target_->pid(), {"-s", "all", "-t", "1"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("a thread is still inside a call it traced then"), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "refused.er"));

  std::ofstream(dir_.path() / "wake").put('\n');
  ASSERT_TRUE(wait_for_file(dir_.path() / "woken", std::chrono::seconds(10)));
  ProcessResult again;
  ASSERT_TRUE(attach_and_trigger(dir_, target_->pid(), "again.er", {"-p", "on", "-H", "on", "-s", "all", "-i", "on", "-t", "2"},
                                 "go", "done", &again))
      << again.err;
  ASSERT_EQ(again.exit_code, 0) << again.err;
  expect_round_recorded(dir_, "again.er");
  EXPECT_FALSE(maps_collector(target_->pid())) << again.err;
  EXPECT_EQ(stop_target(), 3) << "the wait ended through the inert interposer";
}

// A process that runs under collect already: an attach is refused, and
// the recording from its start goes on.
TEST_F(Attach, AProcessRecordedFromItsStartIsRefused) {
  // (target_ runs without collect: this one is started under it)
  TempDir own;
  Background recorded({(bin_dir() / "collect").string(), "-d", own.path().string(), "-o", "start.er", "-p", "on",
                       (target_dir() / target_name()).string(), own.path().string()},
                      {{"LUMEN_TEST_TRUTH", (own.path() / "truth.json").string()}});
  ASSERT_TRUE(wait_for_file(own.path() / "ready", std::chrono::seconds(20)));
  std::ifstream ready(own.path() / "ready");
  pid_t pid = 0;
  ready >> pid;
  const ProcessResult refused = collect_attached(dir_, "refused.er", pid, {"-p", "on", "-t", "1"});
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("is recorded already: it runs under collect"), std::string::npos) << refused.err;
  std::ofstream(own.path() / "stop").put('\n');
  EXPECT_EQ(recorded.wait_exit(std::chrono::seconds(30)), 3);
  EXPECT_EQ(rows_by_name(er_print_json({"-functions"}, own.path() / "start.er")).count("worker"), 1u);
}

// glibc keeps a small reserve of static TLS for libraries loaded later
// (about 1.6 KiB), and gives back a closed library's only while it is the
// last taken: each detach must give back all that its attach took, or the
// plugins of a later attach cannot load (before, a traced attach lost 448
// bytes, and the fourth one's plugins failed). Ten attaches in a row to
// one process each count their round of traced calls exactly.
TEST_F(Attach, TenAttachesInARowEachCountTheirRoundExactly) {
  const std::vector<std::string> flags{"-p", "on", "-H", "on", "-s", "all", "-i", "on", "-t", "2"};
  for (int attach = 1; attach <= 10; ++attach) {
    SCOPED_TRACE("attach " + std::to_string(attach));
    std::filesystem::remove(dir_.path() / "done");
    const std::string name = "round" + std::to_string(attach) + ".er";
    ProcessResult run;
    ASSERT_TRUE(attach_and_trigger(dir_, target_->pid(), name, flags, "go", "done", &run)) << run.err;
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.err.find("did not collect"), std::string::npos) << run.err;
    expect_round_recorded(dir_, name);
    ASSERT_FALSE(maps_collector(target_->pid())) << run.err;
  }
  EXPECT_EQ(stop_target(), 3);
}

// A process whose reserve of static TLS is too small for some plugins
// (glibc's tunables shrink it to 288 bytes: the runtime, clock and states
// fit, heap tracing does not): collect says which plugin could not start
// and why, and records the others; when none can start it lets the
// process go and says so, leaving no experiment.
class AttachWithLittleStaticTls : public Attach {
 protected:
  std::map<std::string, std::string> target_environment() const override {
    return {{"GLIBC_TUNABLES", "glibc.rtld.nns=1:glibc.rtld.optional_static_tls=0"}};
  }
};

TEST_F(AttachWithLittleStaticTls, APluginThatCannotStartIsNamedAndNoneStartingIsRefused) {
  const ProcessResult partly = collect_attached(dir_, "partly.er", target_->pid(), {"-p", "on", "-H", "on", "-t", "1"});
  ASSERT_EQ(partly.exit_code, 0) << partly.err;
  EXPECT_NE(partly.err.find("warning: plugin 'heap' did not collect:"), std::string::npos) << partly.err;
  EXPECT_NE(partly.err.find("static TLS"), std::string::npos) << partly.err;
  EXPECT_EQ(partly.err.find("plugin 'clock'"), std::string::npos) << partly.err;
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu", "-limit", "0", "-functions"},
                                               dir_.path() / "partly.er"));
  EXPECT_TRUE(rows.count("hot_a")) << "the clock plugin recorded nothing";
  EXPECT_FALSE(maps_collector(target_->pid())) << partly.err;

  const ProcessResult none = collect_attached(dir_, "none.er", target_->pid(), {"-p", "off", "-H", "on", "-t", "1"});
  EXPECT_EQ(none.exit_code, 2) << none.err;
  EXPECT_NE(none.err.find("warning: plugin 'heap' did not collect:"), std::string::npos) << none.err;
  EXPECT_NE(none.err.find("no plugin could start"), std::string::npos) << none.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "none.er"));
  EXPECT_FALSE(maps_collector(target_->pid())) << none.err;
  EXPECT_EQ(stop_target(), 3);
}

TEST_F(Attach, AProcessAnotherTracerHoldsIsRefused) {
  ASSERT_EQ(ptrace(PTRACE_SEIZE, target_->pid(), nullptr, nullptr), 0);
  const ProcessResult run = collect_attached(dir_, "traced.er", target_->pid());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("already traced by process " + std::to_string(getpid())), std::string::npos) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "traced.er"));
  // Let it go (a seized thread is detached stopped).
  ptrace(PTRACE_INTERRUPT, target_->pid(), nullptr, nullptr);
  int status = 0;
  waitpid(target_->pid(), &status, __WALL);
  ptrace(PTRACE_DETACH, target_->pid(), nullptr, nullptr);
  EXPECT_EQ(stop_target(), 3);
}

// A real program blocked reading its input, attached to as soon as it
// reads (the stop collect makes first restarts its read, which /proc then
// shows running): it is loaded into, traced, and copies its input as
// before once detached.
TEST(AttachToAProgram, CatBlockedReadingItsInput) {
  const TempDir dir;
  const std::string copied = (dir.path() / "copied").string();
  Background cat({"/bin/cat"}, {}, copied);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const ProcessResult run = collect_attached(dir, "cat.er", cat.pid(), {"-H", "on", "-i", "on", "-t", "1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("detached"), std::string::npos) << run.err;
  EXPECT_FALSE(maps_collector(cat.pid())) << run.err;
  ASSERT_TRUE(cat.give_input("after the detach\n"));
  cat.close_input();
  EXPECT_EQ(cat.wait_exit(std::chrono::seconds(10)), 0);
  std::ifstream in(copied);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "after the detach\n");
}

// A program with its own malloc, whose busy thread holds that allocator's
// lock nearly all the time. collect holds the busy thread while the
// collector loads, and the load allocates: collect lets the thread go when
// the load is slow, which then finishes (else it waited for the thread
// until collect gave up on it). The busy thread's profiling signals come
// while it holds the lock: their stacks are taken without the
// thread-local storage glibc would allocate for libunwind there (which
// waited for that lock for ever: no sample, and a detach that failed).
TEST(AttachToAProgram, WithItsOwnMallocLockedByABusyThread) {
  const TempDir dir;
  Background target({(target_dir() / "own_malloc_target").string(), dir.path().string()}, {});
  ASSERT_TRUE(wait_for_file(dir.path() / "ready", std::chrono::seconds(10)));
  const ProcessResult run = collect_attached(dir, "own.er", target.pid(), {"-t", "3"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.err.find("attached to process"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("detached"), std::string::npos) << run.err;
  EXPECT_FALSE(maps_collector(target.pid())) << run.err;
  const json rows = rows_by_name(er_print_json({"-metrics", "e.totalcpu", "-functions"}, dir.path() / "own.er"));
  ASSERT_TRUE(rows.contains("busy")) << rows.dump();
  EXPECT_GT(rows["busy"]["e.totalcpu"].get<double>(), 0.0) << rows.dump();
  std::ofstream(dir.path() / "stop").put('\n');
  EXPECT_EQ(target.wait_exit(std::chrono::seconds(20)), 0);
}

// Threads that appear and end while collect stops and calls the
// process's threads: one that ended before it could be asked is no thread
// missed (which kept the collector loaded after the detach, and a later
// attach then crashed the process in the collector's released state).
// Each of eight attaches in a row records and unloads the collector, and
// the program's threads all run to their end.
TEST(AttachToAProgram, ThatStartsShortLivedThreadsWithoutPause) {
  const TempDir dir;
  Background target({(target_dir() / "thread_churn_target").string(), dir.path().string()}, {});
  ASSERT_TRUE(wait_for_file(dir.path() / "ready", std::chrono::seconds(10)));
  for (int attach = 1; attach <= 8; ++attach) {
    SCOPED_TRACE("attach " + std::to_string(attach));
    const std::string name = "churn" + std::to_string(attach) + ".er";
    const ProcessResult run = collect_attached(dir, name, target.pid(), {"-p", "on", "-s", "all", "-t", "0.3"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(run.err.find("could not be stopped"), std::string::npos) << run.err;
    EXPECT_EQ(run.err.find("stays loaded"), std::string::npos) << run.err;
    ASSERT_FALSE(maps_collector(target.pid())) << run.err;
    // (A thread's 30 µs of CPU is far below a clock tick of its own: the
    // traced joins of them are what every window holds.)
    const json rows = rows_by_name(er_print_json({"-metrics", "i.syncn", "-functions"}, dir.path() / name));
    ASSERT_TRUE(rows.contains("pthread_join")) << rows.dump();
    EXPECT_GT(rows["pthread_join"]["i.syncn"].get<long long>(), 0) << rows.dump();
  }
  std::ofstream(dir.path() / "stop").put('\n');
  EXPECT_EQ(target.wait_exit(std::chrono::seconds(20)), 0);
}

TEST(AttachRefusal, AProcessThatIsGone) {
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  waitpid(gone, nullptr, 0);
  TempDir dir;
  const ProcessResult run = collect_attached(dir, "gone.er", gone);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("no process " + std::to_string(gone)), std::string::npos) << run.err;
}

TEST(AttachRefusal, AStaticallyLinkedProcessSaysWhatStillWorks) {
  TempDir dir;
  Background target({(target_dir() / "static_target").string()}, {});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));  // at its read of standard input
  const ProcessResult run = collect_attached(dir, "static.er", target.pid());
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("statically linked"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("er_kernel"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace lumen::test
