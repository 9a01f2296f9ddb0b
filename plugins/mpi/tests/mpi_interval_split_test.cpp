// How er_print splits clock samples into mpiwork and mpiwait, on an
// experiment whose records are written here with the runtime's own record
// writer at chosen times: a sample belongs to mpiwait when its time lies in
// [entry, exit] of an MPI call of its own thread (overlapping calls merged),
// else to mpiwork. Each sample carries its own power of two, so every sum
// tells which samples it holds.
#include <gtest/gtest.h>
#include <lumen/record_format.h>

#include <filesystem>
#include <fstream>

#include "../../clock/clock_record.h"
#include "../mpi_record.h"
#include "experiment.h"
#include "experiment_metrics.h"
#include "interval_split.h"
#include "metric_spec.h"
#include "stack_profile.h"
#include "program_structure.h"
#include "recording/stream_writer.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

constexpr uint32_t kCaller = 1001;  // a thread that calls MPI
constexpr uint32_t kOther = 1002;   // a thread of the same process that does not
constexpr uint64_t kBase = 1'000'000'000;

void write_sample(int stream, uint32_t thread, uint64_t at, uint64_t cpu_ns) {
  const clock::ClockSplitSample sample{kBase + at, LUMEN_NO_STACK, cpu_ns, 0, thread, -1};
  ASSERT_TRUE(collector::write_record(stream, clock::kSplitSampleRecord, &sample, sizeof sample));
}

void write_call(int stream, uint32_t thread, uint64_t enter, uint64_t exit) {
  mpi::MpiCall call{};
  call.enter_ns = kBase + enter;
  call.exit_ns = kBase + exit;
  call.stack_id = LUMEN_NO_STACK;
  call.thread_id = thread;
  call.peer = call.tag = -1;
  call.function = static_cast<uint16_t>(mpi::Function::kBarrier);
  ASSERT_TRUE(collector::write_record(stream, mpi::kCallRecord, &call, sizeof call));
}

class IntervalSplit : public testing::Test {
 protected:
  // One experiment per process: the writer's stream names are global.
  static void SetUpTestSuite() {
    experiment_ = fs::temp_directory_path() / ("lumen_interval_split_" + std::to_string(getpid()) + ".er");
    fs::create_directories(experiment_);
    const int samples = collector::open_stream(experiment_.c_str(), clock::kDataFile);
    const int calls = collector::open_stream(experiment_.c_str(), mpi::kDataFile);
    ASSERT_GE(samples, 0);
    ASSERT_GE(calls, 0);
    write_call(calls, kCaller, 100, 200);
    write_call(calls, kCaller, 150, 300);  // overlaps the first
    write_call(calls, kCaller, 500, 600);
    // Written before the calls' records would be in a real file too: the
    // split does not depend on the order of files or records.
    const std::pair<uint64_t, uint64_t> caller_samples[] = {
        {99, 1}, {100, 2}, {250, 4}, {300, 8}, {301, 16}, {400, 32}, {500, 64}, {601, 128}};
    for (const auto& [at, value] : caller_samples) write_sample(samples, kCaller, at, value);
    write_sample(samples, kOther, 150, 256);  // during the caller's call, on another thread
    write_sample(samples, kOther, 550, 512);
    collector::finish_thread_streams();
    std::ofstream header(experiment_ / "header.yaml");
    header << "format: {major: " << LUMEN_FORMAT_MAJOR << ", minor: " << LUMEN_FORMAT_MINOR << "}\n"
           << "command: [written]\n"
           << "plugins:\n"
           << "  clock: {version: 1.0, data_file: " << clock::kDataFile << "}\n"
           << "  mpi: {version: 1.0, data_file: " << mpi::kDataFile << "}\n";
  }
  static void TearDownTestSuite() { fs::remove_all(experiment_); }

  void SetUp() override {
    plugins_ = std::make_unique<analysis::AnalysisPlugins>(analysis::AnalysisPlugins::load(LUMEN_TEST_PLUGIN_DIR));
    experiments_.push_back(std::make_unique<analysis::Experiment>(experiment_, *plugins_));
    analysis::register_metrics(*experiments_.back(), registry_);
  }

  int64_t value(const analysis::Values& values, const std::string& keyword) const {
    const auto index = registry_.find(keyword);
    EXPECT_TRUE(index.has_value()) << keyword;
    return index ? values.at(*index) : -1;
  }

  static inline fs::path experiment_;
  std::unique_ptr<analysis::AnalysisPlugins> plugins_;
  analysis::MetricRegistry registry_;
  std::vector<std::unique_ptr<analysis::Experiment>> experiments_;
  analysis::ProgramStructure structure_;
};

TEST_F(IntervalSplit, SamplesInsideTheirThreadsCallsAreWaitTheOthersWork) {
  const analysis::StackProfile profile(experiments_, registry_, structure_, {});
  const analysis::Values& total = profile.functions().total();
  EXPECT_EQ(value(total, "totalcpu"), 1023);
  EXPECT_EQ(value(total, "user"), 1023) << "the samples' CPU time is all user time";
  EXPECT_EQ(value(total, "mpiwait"), 2 + 4 + 8 + 64);  // 100 and 300 are the calls' own ends
  EXPECT_EQ(value(total, "mpiwork"), 1 + 16 + 32 + 128 + 256 + 512);

  const auto& threads = profile.threads();
  ASSERT_EQ(threads.count({0, kCaller}), 1u);
  ASSERT_EQ(threads.count({0, kOther}), 1u);
  const analysis::Values& caller = threads.at({0, kCaller}).values;
  EXPECT_EQ(value(caller, "mpiwait"), 78);
  EXPECT_EQ(value(caller, "mpiwork"), 177);
  const analysis::Values& other = threads.at({0, kOther}).values;
  EXPECT_EQ(value(other, "mpiwait"), 0) << "another thread's call is not this thread's wait";
  EXPECT_EQ(value(other, "mpiwork"), 768);
}

TEST_F(IntervalSplit, FilteredSamplesAreSplitTheSameWay) {
  // Only the samples after the first two calls: the intervals still come
  // from every call, whatever the filter keeps.
  const analysis::StackProfile profile(experiments_, registry_, structure_,
                                  [](size_t, const lumen_event& event) { return event.time_ns > kBase + 300; });
  const analysis::Values& total = profile.functions().total();
  EXPECT_EQ(value(total, "mpiwait"), 64);
  EXPECT_EQ(value(total, "mpiwork"), 16 + 32 + 128 + 512);
  EXPECT_EQ(value(total, "totalcpu"), 64 + 16 + 32 + 128 + 512);
}

TEST_F(IntervalSplit, DefaultMetricsShowTheSplitOnlyWhereItsSampledMetricIs) {
  EXPECT_NE(analysis::default_metric_spec(registry_).find("e.mpiwait"), std::string::npos);
  // A session of MPI tracing alone: nothing to split, so no columns of zeros.
  analysis::MetricRegistry mpi_only;
  const host::AnalysisHalf* mpi = plugins_->find("mpi");
  ASSERT_NE(mpi, nullptr);
  const std::vector<size_t> indices =
      mpi_only.add_plugin("mpi", mpi->descriptor->metrics, mpi->descriptor->metric_count);
  analysis::register_split_metrics(*mpi, indices, mpi_only);
  const std::string spec = analysis::default_metric_spec(mpi_only);
  EXPECT_NE(spec.find("e.%mpitime"), std::string::npos) << spec;
  EXPECT_EQ(spec.find("mpiwork"), std::string::npos) << spec;
  EXPECT_EQ(spec.find("mpiwait"), std::string::npos) << spec;
}

}  // namespace
}  // namespace lumen::test
