// The states' intervals as er_print reads them, from experiments built by
// hand: a record of format 1.0 (before the stacks' times) still reads, and
// Total Thread Time's time on a CPU is clock profiling's samples on every
// thread they sampled, the states' own count on the others.
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>

#include "../states_record.h"
#include "data_file_support.h"
#include "hand_built_experiment.h"
#include "lumen_commands.h"

namespace lumen::test {
namespace {

using nlohmann::json;
using states::StateInterval;

constexpr uint32_t kSampled = 4242;    // build_experiment's samples' thread: three of 10 ms
constexpr uint32_t kUnsampled = 4243;  // no clock sample

StateInterval interval(uint32_t thread, uint64_t time_ms, uint64_t cpu_ms, uint64_t wait_ms, uint64_t sleep_ms) {
  StateInterval r{};
  r.time_ns = time_ms * 1'000'000;
  r.cpu_ns = cpu_ms * 1'000'000;
  r.wait_ns = wait_ms * 1'000'000;
  r.blocked_ns = sleep_ms * 1'000'000;
  r.blocked = sleep_ms > 0 ? states::Blocked::kSleep : states::Blocked::kNone;
  r.blocked_stack = r.wait_stack = r.cpu_stack = LUMEN_NO_STACK;
  r.thread_id = thread;
  return r;
}

TEST(StatesRecords, TimeOnACpuIsTheSamplesWhereTheClockSampledTheThread) {
  TempDir dir;
  const HandBuiltExperiment e =
      build_experiment(dir.path(), "test.1.er", 3, "  states: {version: 1.0, data_file: states}\n");
  // Format 1.0's record ends before the stacks' times.
  const std::string old_form = bytes_of(interval(kSampled, 1010, 22, 7, 0)).substr(0, states::kIntervalBytes10);
  std::ofstream(e.path / states::kDataFile, std::ios::binary)
      << make_block(kSampled, {{states::kIntervalRecord, old_form},
                               {states::kIntervalRecord, bytes_of(interval(kSampled, 1020, 5, 0, 11))}})
      << make_block(kUnsampled, {{states::kIntervalRecord, bytes_of(interval(kUnsampled, 1020, 13, 0, 0))}});
  const auto rows = rows_by_name(
      er_print_json({"-metrics", "e.totalcpu:e.total:e.oncpu:e.wait:e.sleep:name", "-functions"}, e.path));
  ASSERT_TRUE(rows.count("<Total>"));
  const json& total = rows.at("<Total>");
  EXPECT_NEAR(total.at("e.totalcpu").get<double>(), 0.030, 1e-9);
  // The sampled thread's 30 ms of samples, not its intervals' 22 + 5; the
  // other's own 13.
  EXPECT_NEAR(total.at("e.oncpu").get<double>(), 0.030 + 0.013, 1e-9);
  EXPECT_NEAR(total.at("e.wait").get<double>(), 0.007, 1e-9);
  EXPECT_NEAR(total.at("e.sleep").get<double>(), 0.011, 1e-9);
  EXPECT_NEAR(total.at("e.total").get<double>(), 0.030 + 0.013 + 0.007 + 0.011, 1e-9);
  const json threads = er_print_json({"-metrics", "e.total", "-thread_list"}, e.path);
  std::map<std::string, double> by_tid;
  for (const json& row : threads.at("rows")) by_tid[row.at("tid").get<std::string>()] = row.at("values").at("e.total");
  EXPECT_NEAR(by_tid[std::to_string(kSampled)], 0.030 + 0.007 + 0.011, 1e-9);
  EXPECT_NEAR(by_tid[std::to_string(kUnsampled)], 0.013, 1e-9);
}

}  // namespace
}  // namespace lumen::test
