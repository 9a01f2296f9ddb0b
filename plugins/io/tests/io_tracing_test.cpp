// I/O tracing end to end: io_target reads and writes known byte counts on
// files and from functions it names, counts what each call returned, and
// times each call from outside; collected with -i on, er_print's I/O views
// and metrics must equal its counts. Each kind of traced time (read, write,
// other, error) lies within the target's own timing of those calls, and a
// read that waits for another thread's write is timed across the wait.
#include <gtest/gtest.h>

#include <fstream>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char* const kCounters[] = {"ioreadbytes", "iowritebytes", "ioreadcnt", "iowritecnt", "ioothercnt", "ioerrorcnt"};
const char* const kTimes[] = {"ioreadtime", "iowritetime", "ioothertime", "ioerrortime"};

// The plugin times a call inside the target's own timing of it: from just
// before the real call to just after, by the collector's clock (the TSC in
// ns), where the target reads CLOCK_MONOTONIC. A call's traced time may pass
// the target's by the two clocks' rounding and rate, under 1 us a call.
constexpr double kClocksPerCall = 1e-6;
// What runs on the reading thread between the target's clock read before
// the pipe's read and the plugin's (a clock read, the interposer's check
// that the thread records): well under a microsecond on a CPU, bounded here
// at 1 ms. Time off the CPU there is the run delay the target measured.
constexpr double kBeforeTheRead = 1e-3;

json run_er_print(const std::vector<std::string>& args, const fs::path& experiment) {
  return er_print_json(args, experiment);
}

// The rows of a plugin view's table by name: name -> row.
std::map<std::string, json> table_rows(const json& view, size_t table = 0) {
  std::map<std::string, json> rows;
  for (const auto& row : view.at("tables").at(table).at("rows")) rows[row.at("name").get<std::string>()] = row;
  return rows;
}

long long calls_of(const json& counted) {
  long long calls = 0;
  for (const char* counter : {"ioreadcnt", "iowritecnt", "ioothercnt", "ioerrorcnt"})
    calls += counted.at(counter).get<long long>();
  return calls;
}

// Each kind of traced time, `traced(metric)` in seconds, against the
// target's own timing of those calls in `counted`: never more than it, and
// some time wherever there were calls of the kind. (How much less is the
// collector's own work around each call, unwinding and recording, which
// the target cannot tell apart from the call's; the pipe's read bounds it
// from below where the call's own time is known.)
template <typename Traced>
void expect_times_are_the_targets(const Traced& traced, const json& counted, const std::string& what) {
  const double calls = static_cast<double>(calls_of(counted));
  const char* const counts[] = {"ioreadcnt", "iowritecnt", "ioothercnt", "ioerrorcnt"};
  for (size_t i = 0; i < std::size(kTimes); ++i) {
    const std::string t = kTimes[i];
    const double truth = counted.at(t + "_ns").get<double>() * 1e-9;
    const double seen = traced(t);
    EXPECT_LE(seen, truth + calls * kClocksPerCall) << what << " " << t << ": the target timed " << truth << " s";
    if (counted.at(counts[i]).get<long long>() > 0) EXPECT_GT(seen, 0) << what << " " << t << " has calls";
  }
}

class IoTracing : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    fs::create_directories(dir_->path() / "files");
    const double steal_before = machine_steal_seconds();
    run_ = new ProcessResult(run_process({(bin_dir() / "collect").string(), "-o", "io.er", "-d",
                                          dir_->path().string(), "-p", "off", "-i", "on", LUMEN_IO_TARGET,
                                          (dir_->path() / "files").string(), (dir_->path() / "truth.json").string()}));
    stolen_ = machine_steal_seconds() - steal_before;
    std::ifstream in(dir_->path() / "truth.json");
    if (in) truth_ = new json(json::parse(in));
  }
  static void TearDownTestSuite() {
    delete run_;
    delete truth_;
    delete dir_;
  }
  void SetUp() override {
    ASSERT_EQ(run_->exit_code, 0) << run_->err;
    ASSERT_NE(truth_, nullptr) << run_->err;
  }
  static fs::path experiment() { return dir_->path() / "io.er"; }
  static const json& truth() { return *truth_; }
  static TempDir* dir_;
  static ProcessResult* run_;
  static json* truth_;
  static double stolen_;  // the machine's steal time over the run
};
double IoTracing::stolen_ = 0;
TempDir* IoTracing::dir_ = nullptr;
ProcessResult* IoTracing::run_ = nullptr;
json* IoTracing::truth_ = nullptr;

TEST_F(IoTracing, TargetRunsUnchanged) {
  EXPECT_EQ(run_->out, "io_target done\n");
  EXPECT_TRUE(fs::exists(experiment() / "iotrace"));
}

TEST_F(IoTracing, ActivityByFileEqualsTheTargetsCounts) {
  const auto rows = table_rows(run_er_print({"-ioactivity"}, experiment()));
  for (const auto& [file, counted] : truth().at("files").items()) {
    ASSERT_EQ(rows.count(file), 1u) << file;
    const json& values = rows.at(file).at("values");
    for (const char* counter : kCounters)
      EXPECT_EQ(values.at(counter).get<long long>(), counted.at(counter).get<long long>()) << file << " " << counter;
    expect_times_are_the_targets([&](const std::string& t) { return values.at(t).get<double>(); }, counted, file);
  }
}

TEST_F(IoTracing, DetailByDescriptorAddsUpToEachFile) {
  const auto rows = table_rows(run_er_print({"-iodetail"}, experiment()));
  for (const auto& [file, counted] : truth().at("files").items()) {
    std::map<std::string, long long> sums;
    int descriptors = 0;
    for (const auto& [name, row] : rows) {
      if (!name.starts_with(file + " (fd ")) continue;
      ++descriptors;
      for (const char* counter : kCounters) sums[counter] += row.at("values").at(counter).get<long long>();
    }
    for (const char* counter : kCounters)
      EXPECT_EQ(sums[counter], counted.at(counter).get<long long>()) << file << " " << counter;
    if (file.ends_with("/beta.dat")) {
      EXPECT_EQ(descriptors, 4) << "creat, dup, dup2 and fcntl(F_DUPFD) each gave beta.dat a descriptor";
      EXPECT_EQ(rows.count(file + " (fd 100)"), 1u) << "dup2's descriptor";
    }
  }
}

// Each stack's leaf is the traced call; the frame under it is the target's
// function that made it.
TEST_F(IoTracing, CallStacksHaveTheTracedCallAsLeaf) {
  const json view = run_er_print({"-iocallstack"}, experiment());
  std::map<std::string, std::map<std::string, long long>> by_caller;
  for (const auto& row : view.at("tables").at(0).at("rows")) {
    ASSERT_GE(row.at("stack").size(), 2u) << row.dump();
    const std::string leaf = row.at("stack").at(0).at("function").get<std::string>();
    EXPECT_NE(std::string("read write pread pwrite readv writev preadv pwritev preadv2 pwritev2 open openat creat close "
                          "fsync fdatasync lseek dup dup2 dup3 fcntl")
                  .find(leaf),
              std::string::npos)
        << leaf;
    const std::string caller = row.at("stack").at(1).at("function").get<std::string>();
    for (const char* counter : kCounters) by_caller[caller][counter] += row.at("values").at(counter).get<long long>();
  }
  for (const auto& [function, counted] : truth().at("functions").items()) {
    ASSERT_EQ(by_caller.count(function), 1u) << function << " made no I/O call of any stack";
    for (const char* counter : kCounters)
      EXPECT_EQ(by_caller[function][counter], counted.at(counter).get<long long>()) << function << " " << counter;
  }
}

// The core attributes the metrics: inclusive per function equals the
// target's counts (write_gamma also opens and closes its directory through
// two helpers the truth leaves out), and the traced calls are the leaves.
TEST_F(IoTracing, FunctionsViewAttributesTheMetricsWithTheCallsAsLeaves) {
  std::string spec;
  for (const char* counter : kCounters) spec += std::string("i.") + counter + ":e." + counter + ":";
  const auto rows = rows_by_name(run_er_print({"-metrics", spec + "name", "-functions"}, experiment()));
  for (const auto& [function, counted] : truth().at("functions").items()) {
    ASSERT_EQ(rows.count(function), 1u) << function;
    for (const char* counter : kCounters) {
      const std::string key = std::string("i.") + counter;
      long long value = rows.at(function).at(key).get<long long>();
      if (function == "write_gamma")
        value -= rows.at("open_directory").at(key).get<long long>() + rows.at("close_directory").at(key).get<long long>();
      EXPECT_EQ(value, counted.at(counter).get<long long>()) << function << " " << counter;
      EXPECT_EQ(rows.at(function).at(std::string("e.") + counter).get<long long>(), 0) << function << " is no leaf";
    }
  }
  EXPECT_EQ(rows.at("pwrite").at("e.iowritebytes").get<long long>(), 4099 + 333);
  // Time is counted where the calls were made, as the target timed them.
  std::string times;
  for (const char* t : kTimes) times += std::string("i.") + t + ":";
  const auto timed = rows_by_name(run_er_print({"-metrics", times + "name", "-functions"}, experiment()));
  for (const auto& [function, counted] : truth().at("functions").items()) {
    expect_times_are_the_targets(
        [&](const std::string& t) {
          double seconds = timed.at(function).at("i." + t).get<double>();
          if (function == "write_gamma")
            seconds -= timed.at("open_directory").at("i." + t).get<double>() +
                       timed.at("close_directory").at("i." + t).get<double>();
          return seconds;
        },
        counted, function);
  }
  EXPECT_EQ(rows.at("dup2").at("e.ioothercnt").get<long long>(), 1);
  EXPECT_EQ(rows.at("read").at("e.ioerrorcnt").get<long long>(), 1) << "write_alpha's read of a write-only file";
}

// The pipe's read cannot return before the writer's write began (after a
// 30 ms sleep): its traced time spans at least from the plugin's clock read
// before it to that moment, whatever the collector does after the call.
TEST_F(IoTracing, APipeReadIsTimedAcrossItsWait) {
  const json& pipe = truth().at("pipe_read");
  const double waited =
      (pipe.at("write_started_ns").get<double>() - pipe.at("read_started_ns").get<double>()) * 1e-9;
  ASSERT_GT(waited, 0.025) << "the writer slept 30 ms before its write";
  const double delay = pipe.at("delay_ns").get<double>() * 1e-9;
  const auto rows = rows_by_name(run_er_print({"-metrics", "i.ioreadtime:name", "-functions"}, experiment()));
  ASSERT_EQ(rows.count("read_pipe"), 1u);
  EXPECT_GE(rows.at("read_pipe").at("i.ioreadtime").get<double>(), waited - delay - stolen_ - kBeforeTheRead)
      << "the write began " << waited << " s after the target's clock read before the read; the reading thread waited "
      << delay << " s for a CPU across it, the machine's steal " << stolen_ << " s";
}

TEST_F(IoTracing, StatisticsCountEveryCallBySize) {
  const json view = run_er_print({"-iostat"}, experiment());
  const auto classes = table_rows(view, 0);
  long long reads = 0, writes = 0, read_bytes = 0, write_bytes = 0, errors = 0;
  for (const auto& [file, counted] : truth().at("files").items()) {
    reads += counted.at("ioreadcnt").get<long long>();
    writes += counted.at("iowritecnt").get<long long>();
    read_bytes += counted.at("ioreadbytes").get<long long>();
    write_bytes += counted.at("iowritebytes").get<long long>();
    errors += counted.at("ioerrorcnt").get<long long>();
  }
  EXPECT_EQ(classes.at("Reads").at("values").at("calls").get<long long>(), reads);
  EXPECT_EQ(classes.at("Reads").at("values").at("bytes").get<long long>(), read_bytes);
  EXPECT_EQ(classes.at("Writes").at("values").at("calls").get<long long>(), writes);
  EXPECT_EQ(classes.at("Writes").at("values").at("bytes").get<long long>(), write_bytes);
  EXPECT_EQ(classes.at("Errors").at("values").at("calls").get<long long>(), errors);
  EXPECT_EQ(classes.at("Writes").at("values").at("largest").get<long long>(), 100003);
  long long sized_reads = 0, sized_writes = 0;
  for (const auto& [range, row] : table_rows(view, 1)) {
    sized_reads += row.at("values").at("reads").get<long long>();
    sized_writes += row.at("values").at("writes").get<long long>();
  }
  EXPECT_EQ(sized_reads, reads);
  EXPECT_EQ(sized_writes, writes);
}

// As gprofng: the times inclusive by default; counts and bytes by name.
TEST_F(IoTracing, DefaultMetricsAreTheTimesInclusive) {
  const json view = run_er_print({"-functions"}, experiment());
  std::vector<std::string> specs;
  for (const auto& metric : view.at("metrics")) specs.push_back(metric.at("spec").get<std::string>());
  EXPECT_EQ(specs, (std::vector<std::string>{"i.ioreadtime", "i.%ioreadtime", "i.iowritetime", "i.ioothertime",
                                             "i.ioerrortime"}));
}

}  // namespace
}  // namespace lumen::test
