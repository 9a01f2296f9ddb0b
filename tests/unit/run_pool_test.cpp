// The run pool (run_pool.h) under the stream writer: busy threads take runs
// prepared ahead, every record comes back in each thread's own order, and
// what no thread used goes back to being holes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

#include "data_file_support.h"
#include "recording/run_pool.h"
#include "test_support.h"

namespace lumen::test {
namespace {

struct Numbered {
  uint32_t writer;
  uint32_t sequence;
  char filler[92];  // a 100-byte payload: some 650 records a block
};

// On disk once written back: a file system that allocates at writeback
// (ext4's delayed allocation) counts dirty pages only then.
// Writes `count` numbered records of `writer` on the calling thread.
void write_numbered(int stream, uint32_t writer, uint32_t count) {
  Numbered record{};
  record.writer = writer;
  std::memset(record.filler, 'a' + static_cast<int>(writer), sizeof record.filler);
  for (uint32_t i = 0; i < count; ++i) {
    record.sequence = i;
    ASSERT_TRUE(collector::write_record(stream, 7, &record, sizeof record));
  }
}

uint64_t allocated_bytes(const std::filesystem::path& file) {
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  EXPECT_GE(fd, 0);
  EXPECT_EQ(fsync(fd), 0);
  struct stat st {};
  EXPECT_EQ(fstat(fd, &st), 0);
  close(fd);
  return static_cast<uint64_t>(st.st_blocks) * 512;
}

TEST(RunPool, BusyThreadsTakePreparedRunsAndKeepEachThreadsRecordsInOrder) {
  TempDir dir;
  const std::string name = unique_stream_name("pooled");
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  ASSERT_GE(stream, 0);
  const collector::RunPoolCounts before = collector::run_pool_counts();
  collector::run_pool_start(nullptr);
  // Two threads at once, 34 MB each: a thread's first two megabytes are its own
  // runs of 1 to 16 blocks; from then on it takes a full run at a time.
  constexpr uint32_t kRecords = 340'000;  // 540 blocks a thread: its last run not full
  std::vector<std::thread> writers;
  std::vector<uint32_t> tids(2);
  for (uint32_t w = 0; w < 2; ++w) {
    writers.emplace_back([&, w] {
      tids[w] = on_writer_thread([&] { write_numbered(stream, w, kRecords); });
    });
  }
  for (std::thread& t : writers) t.join();
  collector::run_pool_stop();
  const collector::RunPoolCounts after = collector::run_pool_counts();
  EXPECT_GT(after.taken, before.taken) << "no thread took a prepared run; prepared " << after.prepared - before.prepared
                                       << ", passed over " << after.passed_over - before.passed_over;
  EXPECT_GT(after.handed_back, before.handed_back) << "no used run was unmapped by the pool's thread";

  analysis::DataFileSummary summary;
  const std::vector<ReadRecord> read = read_all(dir / name, &summary);
  ASSERT_EQ(read.size(), 2u * kRecords);
  std::map<uint32_t, uint32_t> next_of_thread;
  for (const ReadRecord& r : read) {
    ASSERT_EQ(r.record.payload.size(), sizeof(Numbered));
    Numbered got;
    std::memcpy(&got, r.record.payload.data(), sizeof got);
    ASSERT_LT(got.writer, 2u);
    ASSERT_EQ(r.thread_id, tids[got.writer]);
    // File order is each thread's own order: no record missing, none early.
    ASSERT_EQ(got.sequence, next_of_thread[r.thread_id]++) << "thread " << r.thread_id;
  }
  // Blocks no thread took (the rest of each thread's last run, the runs
  // still prepared at the stop) hold no disk space.
  EXPECT_LE(allocated_bytes(dir / name), (summary.blocks + 1) * uint64_t{LUMEN_BLOCK_BYTES})
      << summary.blocks << " blocks hold records";
}

// Short threads one after another, each writing a few records: after the
// first, each takes a first block mapped ahead; every record is read back,
// and the first blocks still prepared at the stop hold no disk space.
TEST(RunPool, NewThreadsTakeFirstBlocksPreparedAhead) {
  TempDir dir;
  const std::string name = unique_stream_name("first_blocks");
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  ASSERT_GE(stream, 0);
  const collector::RunPoolCounts before = collector::run_pool_counts();
  collector::run_pool_start(nullptr);
  constexpr uint32_t kThreads = 40;
  constexpr uint32_t kRecords = 5;
  std::map<uint32_t, uint32_t> writer_of_tid;
  for (uint32_t w = 0; w < kThreads; ++w) {
    writer_of_tid[on_writer_thread([&] { write_numbered(stream, w, kRecords); })] = w;
    usleep(2000);  // time for the pool to prepare the next
  }
  collector::run_pool_stop();
  const collector::RunPoolCounts after = collector::run_pool_counts();
  EXPECT_GE(after.first_taken - before.first_taken, kThreads / 2)
      << "prepared " << after.first_prepared - before.first_prepared;
  analysis::DataFileSummary summary;
  const std::vector<ReadRecord> read = read_all(dir / name, &summary);
  ASSERT_EQ(read.size(), kThreads * kRecords);
  std::map<uint32_t, uint32_t> next_of_thread;
  for (const ReadRecord& r : read) {
    Numbered got;
    std::memcpy(&got, r.record.payload.data(), sizeof got);
    ASSERT_EQ(writer_of_tid.at(r.thread_id), got.writer);
    ASSERT_EQ(got.sequence, next_of_thread[r.thread_id]++) << "thread " << r.thread_id;
  }
  EXPECT_LE(allocated_bytes(dir / name), (summary.blocks + 1) * uint64_t{LUMEN_BLOCK_BYTES})
      << summary.blocks << " blocks hold records";
}

TEST(RunPool, WithoutItsThreadWritersMapTheirOwnRuns) {
  TempDir dir;
  const std::string name = unique_stream_name("unpooled");
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  ASSERT_GE(stream, 0);
  const collector::RunPoolCounts before = collector::run_pool_counts();
  constexpr uint32_t kRecords = 40'000;
  on_writer_thread([&] { write_numbered(stream, 0, kRecords); });
  const collector::RunPoolCounts after = collector::run_pool_counts();
  EXPECT_EQ(after.taken, before.taken);
  EXPECT_EQ(after.handed_back, before.handed_back);
  const std::vector<ReadRecord> read = read_all(dir / name);
  ASSERT_EQ(read.size(), kRecords);
  for (uint32_t i = 0; i < kRecords; ++i) {
    Numbered got;
    std::memcpy(&got, read[i].record.payload.data(), sizeof got);
    ASSERT_EQ(got.sequence, i);
  }
}

TEST(RunPool, UnderASizeLimitNothingIsPrepared) {
  TempDir dir;
  const std::string name = unique_stream_name("limited");
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  ASSERT_GE(stream, 0);
  collector::set_size_limit(uint64_t{1} << 30, nullptr);
  const collector::RunPoolCounts before = collector::run_pool_counts();
  collector::run_pool_start(nullptr);
  constexpr uint32_t kRecords = 40'000;  // 4 MB: full runs asked for
  on_writer_thread([&] { write_numbered(stream, 0, kRecords); });
  collector::run_pool_stop();
  collector::set_size_limit(0, nullptr);
  EXPECT_EQ(collector::run_pool_counts().prepared, before.prepared);
  EXPECT_EQ(read_all(dir / name).size(), kRecords);
}

}  // namespace
}  // namespace lumen::test
