// er_print's output does not depend on how many threads decode the data
// files: the same views, byte for byte, from one thread reading each file in
// one pass and from several threads reading it in many parts (down to one
// block a part), on a large clock experiment and on one with traced calls
// of several threads (synchronization tracing), whose traced-call stack ids
// the parts number on their own until they are merged.
#include <gtest/gtest.h>

#include <string>

#include "lumen_commands.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

// er_print VIEWS... EXPERIMENT with the given threads and part size; its
// standard output.
std::string views_with(const fs::path& experiment, const std::vector<std::string>& views, const std::string& threads,
                       const std::string& part_blocks) {
  std::vector<std::string> argv{(bin_dir() / "er_print").string(), "--threads", threads};
  argv.insert(argv.end(), views.begin(), views.end());
  argv.push_back(experiment.string());
  const ProcessResult r = run_process(argv, {{"LUMEN_ANALYSIS_PART_BLOCKS", part_blocks}});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "progress or warnings on a stderr that is not a terminal";
  return r.out;
}

void expect_same_views(const fs::path& experiment, const std::vector<std::string>& views) {
  const std::string one_pass = views_with(experiment, views, "1", "1000000");
  ASSERT_NE(one_pass.find("<Total>"), std::string::npos) << one_pass;
  EXPECT_EQ(views_with(experiment, views, "1", "1"), one_pass) << "one thread, one block a part";
  EXPECT_EQ(views_with(experiment, views, "4", "1"), one_pass) << "four threads, one block a part";
  EXPECT_EQ(views_with(experiment, views, "3", "16"), one_pass) << "three threads, the default part size";
}

const std::vector<std::string> kViews{"-functions", "-callers-callees", "-calltree", "-objects", "-thread_list"};

TEST(ParallelAnalysis, ALargeClockExperimentReadsTheSameOnAnyNumberOfThreads) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "hi", "-A", "off"}, "threads_target", {"0.3"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  // The recording's own samples, scaled to 600,000 (about 400 blocks).
  const fs::path large = dir.path() / "large.er";
  const ProcessResult scaled = run_process(
      {(bin_dir() / "clock_experiment_gen").string(), c.experiment.string(), large.string(), "600000"});
  ASSERT_EQ(scaled.exit_code, 0) << scaled.err;
  expect_same_views(large, kViews);
}

TEST(ParallelAnalysis, TracedCallsOfSeveralThreadsReadTheSameOnAnyNumberOfThreads) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "hi", "-s", "all"}, LUMEN_SYNC_TARGET, {"all"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  expect_same_views(c.experiment, {"-metrics", "e.sync:i.sync:e.syncn:e.totalcpu", "-functions", "-callers-callees",
                                   "-calltree", "-thread_list"});
}

}  // namespace
}  // namespace lumen::test
