// er_print's output does not depend on how many threads decode the data
// files: the same views, byte for byte, from one thread reading each file in
// one pass and from several threads reading it in many parts (down to one
// block a part), on a large clock experiment, on one with traced calls of
// several threads (synchronization tracing), whose traced-call stack ids the
// parts number on their own until they are merged, on I/O tracing of a
// program from Debian, and on a heap experiment beside clock profiling
// (heap parts merged by address for the leaks). A corrupt record is
// reported the same way, file and offset, on any number of threads.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <string>

#include "lumen_commands.h"
#include "thread_count_views.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kViews{"-functions", "-callers-callees", "-calltree", "-objects", "-thread_list"};

// A clock experiment of `samples` samples (about 1,500 a block), from a
// real recording of threads_target: its stacks, scaled up.
fs::path large_clock_experiment(const TempDir& dir, const std::string& samples) {
  const Collection c = collect(dir, {"-p", "hi", "-A", "off"}, "threads_target", {"0.3"});
  EXPECT_EQ(c.run.exit_code, 0) << c.run.err;
  const fs::path large = dir.path() / "large.er";
  const ProcessResult scaled =
      run_process({(bin_dir() / "clock_experiment_gen").string(), c.experiment.string(), large.string(), samples});
  EXPECT_EQ(scaled.exit_code, 0) << scaled.err;
  return large;
}

TEST(ParallelAnalysis, ALargeClockExperimentReadsTheSameOnAnyNumberOfThreads) {
  TempDir dir;
  const fs::path large = large_clock_experiment(dir, "600000");  // about 400 blocks
  ASSERT_FALSE(HasFailure());
  expect_same_on_any_threads(large, kViews);
}

TEST(ParallelAnalysis, TracedCallsOfSeveralThreadsReadTheSameOnAnyNumberOfThreads) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "hi", "-s", "all"}, LUMEN_SYNC_TARGET, {"all"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  expect_same_on_any_threads(c.experiment, {"-metrics", "e.sync:i.sync:e.syncn:e.totalcpu", "-functions",
                                            "-callers-callees", "-calltree", "-thread_list"});
}

// dd copying byte by byte: 100,000 reads and as many writes, each a traced
// call of its own (a few hundred blocks).
TEST(ParallelAnalysis, IoTracingOfAProgramFromDebianReadsTheSameOnAnyNumberOfThreads) {
  TempDir dir;
  const Collection c =
      collect(dir, {"-p", "on", "-i", "on"}, "/bin/dd", {"if=/dev/zero", "of=/dev/null", "bs=1", "count=100000"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  expect_same_on_any_threads(c.experiment, {"-metrics", "e.ioreadtime:e.iowritetime:e.ioreadcnt:e.iowritecnt:e.totalcpu",
                                            "-functions", "-callers-callees", "-calltree", "-thread_list"});
}

TEST(ParallelAnalysis, HeapTracingBesideClockProfilingReadsTheSameOnAnyNumberOfThreads) {
  TempDir dir;
  const Collection c = collect(dir, {"-p", "hi", "-H", "on"}, "threads_target", {"0.3"});
  ASSERT_EQ(c.run.exit_code, 0) << c.run.err;
  expect_same_on_any_threads(c.experiment, {"-functions", "-calltree", "-leaks", "-allocs", "-heap", "-thread_list"});
}

// Rewrites the kind of the first record of block `block` of a data file,
// keeping its size, so the reader frames it and its decoder refuses it.
void make_first_record_unknown(const fs::path& data_file, uint64_t block) {
  std::fstream file(data_file, std::ios::in | std::ios::out | std::ios::binary);
  const uint64_t at = block * 65536 + 16;  // after the block's header
  uint32_t word = 0;
  file.seekg(static_cast<std::streamoff>(at));
  file.read(reinterpret_cast<char*>(&word), 4);
  ASSERT_TRUE(file) << data_file;
  word = (word & 0xffff0000u) | 9;  // kind 9: no clock record
  file.seekp(static_cast<std::streamoff>(at));
  file.write(reinterpret_cast<const char*>(&word), 4);
}

// Gives the first record of block `block` a size beyond its block: the
// reader cannot frame it.
void make_first_record_overrun(const fs::path& data_file, uint64_t block) {
  std::fstream file(data_file, std::ios::in | std::ios::out | std::ios::binary);
  file.seekp(static_cast<std::streamoff>(block * 65536 + 16));
  const uint32_t word = 0xfff00001u;  // kind 1, 65520 payload bytes
  file.write(reinterpret_cast<const char*>(&word), 4);
  ASSERT_TRUE(file) << data_file;
}

// The same error, naming the file and the offset of the first corrupt
// record, whether one thread reads the file in one pass or several read it
// in parts (each part may fail; the first in the file is reported).
void expect_same_error_on_any_threads(const fs::path& experiment, const std::string& expected) {
  const ProcessResult one_pass = er_print_on_threads(experiment, {"-functions"}, "1", "1000000");
  EXPECT_EQ(one_pass.exit_code, 1) << one_pass.out;
  EXPECT_NE(one_pass.err.find(expected), std::string::npos) << one_pass.err;
  for (const auto& [threads, part_blocks] :
       std::vector<std::pair<std::string, std::string>>{{"2", "1"}, {"2", "16"}, {"4", "1"}}) {
    const ProcessResult parts = er_print_on_threads(experiment, {"-functions"}, threads, part_blocks);
    EXPECT_EQ(parts.exit_code, 1) << threads << " threads, parts of " << part_blocks;
    EXPECT_EQ(parts.err, one_pass.err) << threads << " threads, parts of " << part_blocks;
    EXPECT_EQ(parts.out, one_pass.out) << threads << " threads, parts of " << part_blocks;
  }
}

TEST(ParallelAnalysis, ACorruptRecordIsReportedWithFileAndOffsetOnAnyNumberOfThreads) {
  TempDir dir;
  const fs::path large = large_clock_experiment(dir, "150000");  // about 100 blocks
  ASSERT_FALSE(HasFailure());
  const fs::path profile = large / "profile";
  // A record its decoder refuses in block 40, one the reader cannot frame
  // in block 70: the first is reported, as one pass meets it first.
  make_first_record_unknown(profile, 40);
  make_first_record_overrun(profile, 70);
  expect_same_error_on_any_threads(
      large, profile.string() + " at offset " + std::to_string(40 * 65536 + 16) + ": clock record of kind 9");
  // Another experiment with only the overrun: the reader's error, at its offset.
  const TempDir other;
  const fs::path second = large_clock_experiment(other, "150000");
  ASSERT_FALSE(HasFailure());
  make_first_record_overrun(second / "profile", 70);
  expect_same_error_on_any_threads(second,
                                   (second / "profile").string() + " at offset " + std::to_string(70 * 65536 + 16));
}

}  // namespace
}  // namespace lumen::test
