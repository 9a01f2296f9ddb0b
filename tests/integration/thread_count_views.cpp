#include "thread_count_views.h"

#include <gtest/gtest.h>

#include "lumen_commands.h"

namespace lumen::test {

ProcessResult er_print_on_threads(const std::filesystem::path& experiment, const std::vector<std::string>& views,
                                  const std::string& threads, const std::string& part_blocks) {
  std::vector<std::string> argv{(bin_dir() / "er_print").string(), "--threads", threads};
  argv.insert(argv.end(), views.begin(), views.end());
  argv.push_back(experiment.string());
  return run_process(argv, {{"LUMEN_ANALYSIS_PART_BLOCKS", part_blocks}});
}

void expect_same_on_any_threads(const std::filesystem::path& experiment, const std::vector<std::string>& views) {
  auto output = [&](const std::string& threads, const std::string& part_blocks) {
    const ProcessResult r = er_print_on_threads(experiment, views, threads, part_blocks);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "") << "progress or warnings on a stderr that is not a terminal";
    return r.out;
  };
  const std::string one_pass = output("1", "1000000");
  ASSERT_NE(one_pass.find("<Total>"), std::string::npos) << one_pass;
  EXPECT_EQ(output("1", "1"), one_pass) << "one thread, one block a part";
  EXPECT_EQ(output("2", "1"), one_pass) << "two threads, one block a part";
  EXPECT_EQ(output("4", "1"), one_pass) << "four threads, one block a part";
  EXPECT_EQ(output("2", "16"), one_pass) << "two threads, the default part size";
  EXPECT_EQ(output("3", "16"), one_pass) << "three threads, the default part size";
}

}  // namespace lumen::test
