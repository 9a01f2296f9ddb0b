// The collector API (libcollectorAPI.so) from a real program: nothing
// changes without collect; under collect its sample points are recorded by
// name, CPU burned while it paused is absent, collector_terminate_expt ends
// the experiment, and code it generated is named as it described it.
#include <gtest/gtest.h>
#include <lumen/record_format.h>

#include <cstring>

#include "data_file_reader.h"
#include "lumen_commands.h"

namespace lumen::test {
namespace {

const std::string kOutput = "api_target done (generated code: yes)\n";

TEST(CollectorApi, WithoutCollectTheProgramRunsUnchanged) {
  TempDir dir;
  const auto truth = dir.path() / "truth.json";
  const ProcessResult r = run_process({(target_dir() / "api_target").string()}, {{"LUMEN_TEST_TRUTH", truth.string()}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, kOutput);
  EXPECT_TRUE(std::filesystem::exists(truth));
}

TEST(CollectorApi, SamplesPauseTerminateAndGeneratedCodeUnderCollect) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "on", "-S", "off"}, "api_target");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, kOutput);

  std::vector<std::string> api_samples;
  size_t end_samples = 0;
  analysis::read_data_file(c.experiment / LUMEN_SAMPLES_FILE, [&](const analysis::RawRecord& r) {
    lumen_sample_record sample;
    std::memcpy(&sample, r.payload, sizeof sample);
    if (sample.reason == LUMEN_SAMPLE_API)
      api_samples.emplace_back(static_cast<const char*>(r.payload) + sizeof sample, sample.name_bytes);
    end_samples += sample.reason == LUMEN_SAMPLE_END;
  });
  // The third sample came after terminate: not recorded.
  EXPECT_EQ(api_samples, (std::vector<std::string>{"before pause", "after generated code"}));
  EXPECT_EQ(end_samples, 1u);

  const auto truth = c.truth.at("functions");
  const auto rows = rows_by_name(er_print_json({"-metrics", "e.totalcpu:name", "-functions"}, c.experiment));
  auto user = [&](const std::string& name) { return rows.count(name) ? rows.at(name).at("e.totalcpu").get<double>() : 0.0; };
  const double recorded = truth.at("recorded_api_work").get<double>();
  EXPECT_NEAR(user("recorded_api_work"), recorded, sampling_tolerance(recorded, 0.01));
  EXPECT_LT(user("paused_api_work"), 0.05);
  EXPECT_LT(user("terminated_work"), 0.05);
  const double generated = truth.at("generated_countdown").get<double>();
  EXPECT_NEAR(user("generated_countdown"), generated, sampling_tolerance(generated, 0.01));
  EXPECT_LT(user("<Unknown>"), 0.05) << "generated code left unnamed";
}

TEST(CollectorApi, FortranNamesWithBlankPaddedStrings) {
  if (!std::filesystem::exists(target_dir() / "api_fortran_target")) GTEST_SKIP() << "built without gfortran";
  TempDir dir;
  const Collection c = collect(dir, {"-S", "off"}, "api_fortran_target");
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  EXPECT_EQ(c.run.out, "api_fortran_target done\n");
  std::vector<std::string> api_samples;
  analysis::read_data_file(c.experiment / LUMEN_SAMPLES_FILE, [&](const analysis::RawRecord& r) {
    lumen_sample_record sample;
    std::memcpy(&sample, r.payload, sizeof sample);
    if (sample.reason == LUMEN_SAMPLE_API)
      api_samples.emplace_back(static_cast<const char*>(r.payload) + sizeof sample, sample.name_bytes);
  });
  EXPECT_EQ(api_samples, (std::vector<std::string>{"fortran sample", "second"}));
  const ProcessResult plain = run_process({(target_dir() / "api_fortran_target").string()});
  EXPECT_EQ(plain.exit_code, 0);
  EXPECT_EQ(plain.out, c.run.out);
}

}  // namespace
}  // namespace lumen::test
