// Damage is never silent: an experiment that lost a table or data file,
// names a load object that is no ELF object, dropped records while it was
// recorded or holds header values no machine could have gets a notice on
// every view (stderr, whatever the format), and an intact one gets none.
// Each test damages a copy of one fresh recording.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "hand_built_experiment.h"
#include "lumen_commands.h"

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "expected to find: " << (needle) << "\n in: " << (haystack)
#define EXPECT_LACKS(haystack, needle) \
  EXPECT_EQ(std::string(haystack).find(needle), std::string::npos) << "expected not to find: " << (needle) << "\n in: " << (haystack)

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

std::string text_of(const fs::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Rewrites `file` with each match of `pattern` replaced.
void edit(const fs::path& file, const std::string& pattern, const std::string& replacement) {
  const std::string text = std::regex_replace(text_of(file), std::regex(pattern), replacement);
  std::ofstream(file, std::ios::trunc) << text;
}

class DamagedExperimentNotice : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    recording_dir_ = new TempDir;
    recording_ = new Collection(collect(*recording_dir_, {"-p", "on", "-H", "on"}, "threads_target", {"0.2"}));
  }
  static void TearDownTestSuite() {
    delete recording_;
    delete recording_dir_;
  }
  void SetUp() override {
    ASSERT_EQ(recording_->run.exit_code, 0) << recording_->run.err;
    copy_ = dir_.path() / "test.1.er";
    fs::copy(recording_->experiment, copy_, fs::copy_options::recursive);
  }
  // er_print <args> on the damaged copy, in each format: the notices are the
  // same in all three.
  std::vector<ProcessResult> er_print(const std::vector<std::string>& args) const {
    std::vector<ProcessResult> results;
    for (const char* format : {"--format=text", "--format=csv", "--format=json"}) {
      std::vector<std::string> full{format};
      full.insert(full.end(), args.begin(), args.end());
      full.push_back(copy_.string());
      results.push_back(run_tool("er_print", full));
      EXPECT_EQ(results.back().exit_code, 0) << format << ": " << results.back().err;
    }
    return results;
  }
  void expect_notice(const std::vector<std::string>& args, const std::string& notice) const {
    for (const ProcessResult& r : er_print(args)) EXPECT_CONTAINS(r.err, notice);
  }

  static TempDir* recording_dir_;
  static Collection* recording_;
  TempDir dir_;
  fs::path copy_;
};

TempDir* DamagedExperimentNotice::recording_dir_ = nullptr;
Collection* DamagedExperimentNotice::recording_ = nullptr;

TEST_F(DamagedExperimentNotice, AnIntactExperimentHasNone) {
  for (const char* view : {"-functions", "-leaks", "-header"})
    for (const ProcessResult& r : er_print({view})) {
      EXPECT_LACKS(r.err, "missing");
      EXPECT_LACKS(r.err, "dropped");
      EXPECT_LACKS(r.err, "treated as unknown");
      EXPECT_LACKS(r.err, "not an ELF object");
    }
}

TEST_F(DamagedExperimentNotice, AMissingStackTableIsNamed) {
  fs::remove(copy_ / "stacks");
  expect_notice({"-functions"}, "stacks missing: every event's stack is unknown");
}

TEST_F(DamagedExperimentNotice, AMissingLoadObjectTableIsNamed) {
  fs::remove(copy_ / "loadobjects");
  expect_notice({"-functions"}, "loadobjects missing: no address can be placed in a load object");
}

// Heap views of a heap recording whose heaptrace is gone say the data is
// missing instead of counting no leaks.
TEST_F(DamagedExperimentNotice, AMissingPluginDataFileIsNotZero) {
  fs::remove(copy_ / "heaptrace");
  expect_notice({"-functions"}, "heaptrace missing: no heap data");
  for (const char* view : {"-leaks", "-heap"})
    for (const ProcessResult& r : er_print({view})) {
      EXPECT_CONTAINS(r.err, std::string(view) + ": heaptrace of " + copy_.string() + " is missing");
      EXPECT_LACKS(r.out, "Leaks");
    }
}

TEST_F(DamagedExperimentNotice, DroppedRecordsAreCountedOnEveryView) {
  edit(copy_ / "collector.log", "dropped_records: [0-9]+", "dropped_records: 888");
  for (const char* view : {"-functions", "-header"})
    expect_notice({view}, "888 records were dropped while recording (the collector did not log why)");
}

TEST_F(DamagedExperimentNotice, DroppedRecordsGiveTheLoggedReason) {
  edit(copy_ / "collector.log", "dropped_records: [0-9]+", "dropped_records: 888");
  std::ofstream(copy_ / "collector.log", std::ios::app)
      << "- {event: write_failed, time_ns: 1, file: profile, error: \"No space left on device\"}\n";
  expect_notice({"-functions"},
                "888 records were dropped while recording (writing profile failed: No space left on device)");
}

TEST_F(DamagedExperimentNotice, DroppedRecordsGiveEachLoggedCause) {
  edit(copy_ / "collector.log", "dropped_records: [0-9]+[^}]*", "dropped_records: 5, dropped_causes: {thread_finished: 2, plugin: 3}");
  expect_notice({"-functions"}, "5 records were dropped while recording (3 a plugin could not record them; 2 written "
                                "after their thread's collection ended)");
}

TEST_F(DamagedExperimentNotice, ImplausibleHeaderValuesAreUnknown) {
  const fs::path header = copy_ / "header.yaml";
  edit(header, "\ncpus: [^\n]*", "\ncpus: -5");
  edit(header, "\nclock_mhz: [^\n]*", "\nclock_mhz: .nan");
  edit(header, "\nstart_wall_ns: [^\n]*", "\nstart_wall_ns: -1788000000000000000");
  expect_notice({"-functions"}, "header.yaml's cpus is -5, not a count of CPUs; it is treated as unknown");
  expect_notice({"-functions"}, "header.yaml's clock_mhz is .nan, not a clock rate; it is treated as unknown");
  expect_notice({"-functions"}, "header.yaml's start_wall_ns is -1788000000000000000, not a time between 1990 and now");
  const ProcessResult shown = er_print({"-header"}).front();
  for (const char* unknown : {"CPUs: ?", "Clock rate (MHz): ?", "Start time: ?"}) EXPECT_CONTAINS(shown.out, unknown);
  EXPECT_LACKS(shown.out, "1913");
}

TEST_F(DamagedExperimentNotice, AnEndBeforeTheStartIsUnknown) {
  edit(copy_ / "header.yaml", "\nend_wall_ns: [^\n]*", "\nend_wall_ns: 1000000000000000000");
  expect_notice({"-header"}, "header.yaml's end_wall_ns is 1000000000000000000, before the start (a negative duration)");
  EXPECT_LACKS(er_print({"-header"}).front().out, "Duration");
}

// A file at a load object's path that libdwfl cannot read as ELF: named,
// with what it costs.
TEST(DamagedLoadObject, ANonElfOrDamagedObjectIsNamed) {
  TempDir dir;
  const fs::path text = dir.path() / "libtext.so";
  std::ofstream(text) << "not an ELF object\n";
  const fs::path cut = dir.path() / "libcut.so";
  fs::copy_file(LUMEN_TEST_PLANTED_PLUGIN, cut);
  fs::resize_file(cut, 100);
  for (const fs::path& object : {text, cut}) {
    const HandBuiltExperiment e = build_experiment(dir.path(), object.stem().string() + ".er", 3, "", object.string());
    const ProcessResult functions = run_tool("er_print", {"-functions", e.path.string()});
    EXPECT_EQ(functions.exit_code, 0) << functions.err;
    EXPECT_CONTAINS(functions.err, "load object " + object.string() +
                                       " is not an ELF object or is damaged: its functions cannot be named");
  }
}

// A disk that fills while recording: the runtime logs which data file it
// could not extend and why, and every view says how many records were
// dropped for it. The disk is a tmpfs of 128 KiB (mounting one takes root):
// collect's files and one data file's first 64 KiB block fit, a second
// data file's block does not.
TEST(FullDisk, TheDroppedRecordsGiveTheWritersError) {
  TempDir dir;
  const fs::path disk = dir.path() / "disk";
  fs::create_directory(disk);
  if (run_process({"mount", "-t", "tmpfs", "-o", "size=128k", "tmpfs", disk.string()}).exit_code != 0)
    GTEST_SKIP() << "mounting a small tmpfs takes root";
  struct Unmount {
    fs::path at;
    ~Unmount() { run_process({"umount", at.string()}); }
  } unmount{disk};
  const ProcessResult run = run_process({(bin_dir() / "collect").string(), "-d", disk.string(), "-o", "full.er", "-p",
                                         "hi", "-A", "off", (target_dir() / "threads_target").string()});
  EXPECT_NE(run.out.find("threads_target done"), std::string::npos) << run.err;
  const std::string log = text_of(disk / "full.er" / "collector.log");
  EXPECT_CONTAINS(log, "event: write_failed");
  EXPECT_CONTAINS(log, "errno: 28");
  const ProcessResult functions = run_tool("er_print", {"-functions", (disk / "full.er").string()});
  EXPECT_CONTAINS(functions.err, "failed: No space left on device); every figure leaves them out");
}

}  // namespace
}  // namespace lumen::test
