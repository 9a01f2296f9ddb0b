// What collect's -S, -l, -y, -t and -L do to a real target: sample points
// at the period and on a signal, CPU burned while paused left out of the
// profile, a collection window, and a size limit that stops recording while
// the target runs on. Sample records are read straight from the "samples"
// data file; profiles through er_print.
#include <gtest/gtest.h>
#include <lumen/record_format.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include "data_file_reader.h"
#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

std::vector<lumen_sample_record> samples_of(const fs::path& experiment) {
  std::vector<lumen_sample_record> samples;
  analysis::read_data_file(experiment / LUMEN_SAMPLES_FILE, [&](const analysis::RawRecord& r) {
    if (r.kind != LUMEN_RECORD_SAMPLE) return;
    lumen_sample_record sample;
    std::memcpy(&sample, r.payload, sizeof sample);
    samples.push_back(sample);
  });
  // In time order, as the analysis reads them: the periodic points come from
  // the runtime's sample thread, whose blocks interleave with the main
  // thread's (start and end).
  std::stable_sort(samples.begin(), samples.end(),
                   [](const lumen_sample_record& a, const lumen_sample_record& b) { return a.time_ns < b.time_ns; });
  return samples;
}

size_t count_reason(const std::vector<lumen_sample_record>& samples, uint32_t reason) {
  size_t n = 0;
  for (const auto& s : samples) n += s.reason == reason;
  return n;
}

// Inclusive: the work functions burn in helpers of their own.
double user_seconds(const std::map<std::string, nlohmann::json>& rows, const std::string& name) {
  return rows.count(name) ? rows.at(name).at("i.totalcpu").get<double>() : 0.0;
}

std::string collect_path() { return (bin_dir() / "collect").string(); }
std::string control_target() { return (target_dir() / "collection_control_target").string(); }

TEST(CollectionControl, PeriodicSamplesComeAtThePeriod) {
  TempDir dir;
  const Collection c = collect(dir, {"-S", "0.1"}, "collection_control_target", {"run", "1.2"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto samples = samples_of(c.experiment);
  ASSERT_GE(samples.size(), 2u);
  EXPECT_EQ(samples.front().reason, LUMEN_SAMPLE_START);
  EXPECT_EQ(samples.back().reason, LUMEN_SAMPLE_END);
  // Between the target's own run time and the span the runtime recorded.
  const double wall = c.truth.at("wall_seconds").get<double>();
  const double span = double(samples.back().time_ns - samples.front().time_ns) / 1e9;
  const size_t periodic = count_reason(samples, LUMEN_SAMPLE_PERIODIC);
  EXPECT_GE(periodic, size_t(wall / 0.1) - 1) << "run " << wall << " s";
  EXPECT_LE(periodic, size_t(span / 0.1) + 1) << "span " << span << " s";
  // Figures are cumulative: user time never goes back, and ends near what
  // the target burned.
  for (size_t i = 1; i < samples.size(); ++i) EXPECT_GE(samples[i].user_ns, samples[i - 1].user_ns);
  const double burned = c.truth.at("functions").at("steady_work").get<double>();
  EXPECT_GE(samples.back().user_ns / 1e9 + samples.back().system_ns / 1e9, burned * 0.95);
  EXPECT_GT(samples.back().resident_bytes, 0u);
}

TEST(CollectionControl, PeriodicSamplesOff) {
  TempDir dir;
  const Collection c = collect(dir, {"-S", "off"}, "collection_control_target", {"run", "0.3"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto samples = samples_of(c.experiment);
  EXPECT_EQ(count_reason(samples, LUMEN_SAMPLE_PERIODIC), 0u);
  EXPECT_EQ(count_reason(samples, LUMEN_SAMPLE_START), 1u);
  EXPECT_EQ(count_reason(samples, LUMEN_SAMPLE_END), 1u);
}

TEST(CollectionControl, EachSampleSignalIsASamplePoint) {
  for (const std::string signal : {"SIGUSR1", "USR1", "10"}) {
    TempDir dir;
    const Collection c = collect(dir, {"-S", "off", "-l", signal}, "collection_control_target", {"signals", "37"});
    ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
    EXPECT_EQ(c.run.out, "collection_control_target signals done\n");
    const int sent = c.truth.at("signals_sent").get<int>();
    EXPECT_EQ(sent, 37);
    EXPECT_EQ(count_reason(samples_of(c.experiment), LUMEN_SAMPLE_SIGNAL), size_t(sent)) << signal;
    const auto header = er_print_json({"-header"}, c.experiment);
    std::ifstream in(c.experiment / "header.yaml");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("sample_signal: SIGUSR1"), std::string::npos) << text;
  }
}

TEST(CollectionControl, CpuBurnedWhilePausedIsNotInTheProfile) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "on", "-y", "SIGUSR2"}, "collection_control_target", {"pause"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto truth = c.truth.at("functions");
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu:name", "-functions"}, c.experiment));
  const double resumed = truth.at("resumed_work").get<double>();
  EXPECT_NEAR(user_seconds(rows, "resumed_work"), resumed, sampling_tolerance(resumed, 0.01));
  // A few ticks of skid at each toggle at most, not the 0.3 s burned.
  EXPECT_LT(user_seconds(rows, "paused_before_work"), 0.05);
  EXPECT_LT(user_seconds(rows, "paused_after_work"), 0.05);
}

TEST(CollectionControl, PauseSignalWithRStartsResumed) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "on", "-y", "USR2,r"}, "collection_control_target", {"pause"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto truth = c.truth.at("functions");
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu:name", "-functions"}, c.experiment));
  for (const std::string name : {"paused_before_work", "paused_after_work"}) {
    const double seconds = truth.at(name).get<double>();
    EXPECT_NEAR(user_seconds(rows, name), seconds, sampling_tolerance(seconds, 0.01)) << name;
  }
  EXPECT_LT(user_seconds(rows, "resumed_work"), 0.05);
}

TEST(CollectionControl, OnlyTheCollectionWindowIsRecorded) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "on", "-t", "0.8-1.8"}, "collection_control_target", {"window"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu:name", "-functions"}, c.experiment));
  EXPECT_LT(user_seconds(rows, "early_work"), 0.05);
  EXPECT_LT(user_seconds(rows, "late_work"), 0.05);
  // The CPU window_work burned between 0.8 s and 1.8 s after collect began
  // (the header's start_monotonic_ns), read off the target's own timeline.
  std::ifstream in(c.experiment / "header.yaml");
  const std::string header((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t key = header.find("start_monotonic_ns: ");
  ASSERT_NE(key, std::string::npos) << header;
  const double origin_ns = std::stod(header.substr(key + std::strlen("start_monotonic_ns: ")));
  const auto& timeline = c.truth.at("window_timeline");
  auto cpu_at = [&](double at_ns) {
    for (size_t i = 1; i < timeline.size(); ++i) {
      const double t0 = timeline[i - 1][0].get<double>(), t1 = timeline[i][0].get<double>();
      if (at_ns <= t1) {
        const double c0 = timeline[i - 1][1].get<double>(), c1 = timeline[i][1].get<double>();
        return c0 + (c1 - c0) * std::clamp((at_ns - t0) / (t1 - t0), 0.0, 1.0);
      }
    }
    return timeline.back()[1].get<double>();
  };
  ASSERT_GE(timeline.size(), 2u);
  ASSERT_LE(timeline.front()[0].get<double>(), origin_ns + 0.8e9) << "window_work began after the window opened";
  ASSERT_GE(timeline.back()[0].get<double>(), origin_ns + 1.8e9) << "window_work ended before the window closed";
  const double expected = cpu_at(origin_ns + 1.8e9) - cpu_at(origin_ns + 0.8e9);
  EXPECT_NEAR(user_seconds(rows, "window_work"), expected, sampling_tolerance(expected, 0.01));
}

// Allocations and leaks by function (0 for a function with none).
double heap_figure(const std::map<std::string, nlohmann::json>& rows, const std::string& function,
                   const std::string& metric) {
  const auto row = rows.find(function);
  return row == rows.end() ? 0.0 : row->second.at(metric).get<double>();
}

// Heap tracing buffers events and writes them later: a batch written after
// the window closed, or while paused, still holds the calls made while
// recording. Exactly those are counted: each phase allocates 1,000 blocks
// and keeps 10.
void expect_only_recorded_allocations(const Collection& c, const std::string& recorded,
                                      const std::vector<std::string>& not_recorded) {
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  const auto rows =
      rows_by_name(er_print_json({"-metrics", "i.heapalloccnt:i.heapleakcnt:name", "-functions"}, c.experiment));
  EXPECT_EQ(heap_figure(rows, recorded, "i.heapalloccnt"), 1000.0);
  EXPECT_EQ(heap_figure(rows, recorded, "i.heapleakcnt"), 10.0);
  for (const std::string& name : not_recorded) EXPECT_EQ(heap_figure(rows, name, "i.heapalloccnt"), 0.0) << name;
}

TEST(CollectionControl, HeapTracingCountsTheWindowsCallsExactly) {
  TempDir dir;
  expect_only_recorded_allocations(
      collect(dir, {"-p", "off", "-H", "on", "-t", "0.7-1.8"}, "collection_control_target", {"heap_window"}),
      "window_allocs", {"early_allocs", "late_allocs"});
}

TEST(CollectionControl, HeapTracingCountsTheCallsMadeWhileResumedExactly) {
  TempDir dir;
  expect_only_recorded_allocations(
      collect(dir, {"-p", "off", "-H", "on", "-y", "SIGUSR2"}, "collection_control_target", {"heap_window", "1"}),
      "allocs_while_resumed", {"allocs_before_resume", "allocs_after_pause"});
}

uint64_t data_bytes(const fs::path& experiment) {
  uint64_t bytes = 0;
  for (const auto& entry : fs::directory_iterator(experiment))
    if (entry.is_regular_file() && entry.path().extension() != ".yaml" && entry.path().filename() != "collector.log" &&
        entry.path().filename() != "collector.plan")
      bytes += entry.file_size();
  return bytes;
}

TEST(CollectionControl, SizeLimitStopsRecordingAndTheTargetRunsOn) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "on", "-L", "1"}, "collection_control_target", {"threads", "60"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, "collection_control_target threads done\n");
  EXPECT_NEAR(c.truth.at("functions").at("thread_work").get<double>(), 60 * 0.04, 0.1);
  EXPECT_LE(data_bytes(c.experiment), 1024u * 1024u);
  std::ifstream in(c.experiment / "header.yaml");
  const std::string header((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(header.find("size_limit_bytes: 1048576"), std::string::npos) << header;
  EXPECT_NE(header.find("size_limit_reached: true"), std::string::npos) << header;
  // What was recorded before the limit is still an experiment.
  const auto rows = rows_by_name(er_print_json({"-metrics", "i.totalcpu:name", "-functions"}, c.experiment));
  EXPECT_GT(user_seconds(rows, "thread_work"), 0.0);
  EXPECT_LT(user_seconds(rows, "thread_work"), 60 * 0.04 * 0.9);
}

TEST(CollectionControl, WithoutTheLimitNothingIsCut) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "on", "-L", "200"}, "collection_control_target", {"threads", "10"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  std::ifstream in(c.experiment / "header.yaml");
  const std::string header((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(header.find("size_limit_reached: false"), std::string::npos) << header;
}

TEST(CollectionControl, BadValuesAreRefusedBeforeTheTargetStarts) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-S", "often"}, "-S takes on, off or a period in seconds"},
      {{"-l", "SIGNOPE"}, "-l: 'SIGNOPE' is not a signal"},
      {{"-l", "KILL"}, "SIGKILL cannot be caught"},
      {{"-y", "PROF"}, "SIGPROF is the collector's own signal"},
      {{"-y", "SEGV"}, "SIGSEGV is the program's own"},
      {{"-l", "CHLD"}, "SIGCHLD is the program's own"},
      {{"-l", "32"}, "signal 32 is the C library's own"},
      {{"-y", "USR2,x"}, "-y takes SIGNAL or SIGNAL,r"},
      {{"-l", "USR1", "-y", "10"}, "-l and -y name the same signal"},
      {{"-t", "5-2"}, "the end of the window must come after its start"},
      {{"-t", "soon"}, "-t takes END or START-END"},
      {{"-L", "0"}, "nothing could be recorded"},
      {{"-L", "lots"}, "-L takes a size in megabytes"},
      {{"-A", "maybe"}, "-A takes on, off or copy"},
  };
  for (const auto& [flags, message] : cases) {
    TempDir dir;
    std::vector<std::string> argv{collect_path(), "-d", dir.path().string()};
    argv.insert(argv.end(), flags.begin(), flags.end());
    argv.insert(argv.end(), {control_target(), "run", "0"});
    const auto truth = dir.path() / "truth.json";
    const ProcessResult r = run_process(argv, {{"LUMEN_TEST_TRUTH", truth.string()}});
    EXPECT_EQ(r.exit_code, 2) << flags[0];
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(truth)) << "the target ran with " << flags[0];
    EXPECT_FALSE(fs::exists(dir.path() / "test.1.er"));
  }
}

}  // namespace
}  // namespace lumen::test
