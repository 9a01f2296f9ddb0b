// A signal handler writing to a stream while the code it interrupted is
// writing to the same one (the stacks: a sample's new stack while a traced
// call's is interned): its record is kept even when the interrupted writer
// is changing blocks, and the log can say why any record was dropped.
#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <cstring>
#include <thread>

#include "data_file_support.h"
#include "test_support.h"
#include "threads/program_thread_state.h"

namespace lumen::test {
namespace {

constexpr uint16_t kOwnKind = 1;
constexpr uint16_t kHandlerKind = 2;

std::atomic<int> g_handler_stream{-1};
std::atomic<uint64_t> g_handler_records{0};

void write_from_handler(int) {
  const int saved_errno = errno;
  const uint64_t n = g_handler_records.load(std::memory_order_relaxed);
  char payload[40];
  std::memset(payload, 'h', sizeof payload);
  std::memcpy(payload, &n, sizeof n);
  if (collector::write_record(g_handler_stream.load(), kHandlerKind, payload, sizeof payload))
    g_handler_records.fetch_add(1, std::memory_order_relaxed);
  errno = saved_errno;
}

// The state a writer leaves its block in while it changes blocks (refill in
// stream_writer.cpp): inside a write, no room until the fresh block is in.
TEST(NestedWriter, AHandlersRecordDuringABlockChangeIsWrittenApart) {
  TempDir dir;
  const std::string name = unique_stream_name("nested");
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  ASSERT_GE(stream, 0);
  const uint64_t dropped = collector::dropped_records();
  const uint32_t tid = on_writer_thread([&] {
    ASSERT_TRUE(collector::write_record(stream, kOwnKind, "before", 6));
    collector::ThreadBlock& block = collector::current_thread().blocks[stream];
    const uint32_t capacity = block.capacity.load();
    block.writers.fetch_add(1);
    block.capacity.store(0);
    EXPECT_TRUE(collector::write_record(stream, kHandlerKind, "nested", 6));
    block.capacity.store(capacity);
    block.writers.fetch_sub(1);
    EXPECT_TRUE(collector::write_record(stream, kOwnKind, "after", 5));
  });
  EXPECT_EQ(collector::dropped_records(), dropped);
  const std::vector<ReadRecord> read = read_all(dir / name);
  ASSERT_EQ(read.size(), 3u);
  EXPECT_EQ(read[0].record, (Record{kOwnKind, "before"}));
  EXPECT_EQ(read[1].record, (Record{kOwnKind, "after"}));
  EXPECT_EQ(read[2].record, (Record{kHandlerKind, "nested"}));
  EXPECT_EQ(read[2].thread_id, tid) << "the block apart is the thread's";
  EXPECT_GE(read[2].offset, LUMEN_BLOCK_BYTES) << "in a block of its own";
}

// The real race: a thread filling blocks as fast as it can while another
// signals it without pause, each handler writing a record to the same
// stream. Hundreds of block changes, most of them interrupted.
TEST(NestedWriter, EveryRecordOfHandlersInterruptingAWriterIsRead) {
  TempDir dir;
  const std::string name = unique_stream_name("interrupted");
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  ASSERT_GE(stream, 0);
  g_handler_stream.store(stream);
  g_handler_records.store(0);
  struct sigaction action {}, previous{};
  action.sa_handler = write_from_handler;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ASSERT_EQ(sigaction(SIGUSR2, &action, &previous), 0);

  constexpr uint64_t kOwnRecords = 150'000;  // 200 bytes each: about 470 blocks
  const uint64_t dropped = collector::dropped_records();
  std::atomic<pthread_t> writer{};
  std::atomic<bool> writing{true}, started{false}, signalling{true};
  uint64_t signals_sent = 0;
  std::thread signaller([&] {
    while (!started.load()) std::this_thread::yield();
    while (writing.load()) {
      pthread_kill(writer.load(), SIGUSR2);
      ++signals_sent;
    }
    signalling.store(false);
  });
  uint64_t own_written = 0;
  on_writer_thread([&] {
    writer.store(pthread_self());
    started.store(true);
    std::string payload(200, 'o');
    for (uint64_t i = 0; i < kOwnRecords; ++i) {
      std::memcpy(payload.data(), &i, sizeof i);
      own_written += collector::write_record(stream, kOwnKind, payload.data(), static_cast<uint16_t>(payload.size()));
    }
    writing.store(false);
    // The last signals are handled while the thread's streams are open.
    while (signalling.load()) std::this_thread::yield();
  });
  signaller.join();
  ASSERT_EQ(sigaction(SIGUSR2, &previous, nullptr), 0);

  EXPECT_EQ(own_written, kOwnRecords);
  EXPECT_EQ(collector::dropped_records(), dropped)
      << collector::dropped_records(collector::DropCause::kBlockBusy) << " dropped as block_busy";
  uint64_t own_read = 0, handler_read = 0;
  for (const ReadRecord& r : read_all(dir / name)) (r.record.kind == kOwnKind ? own_read : handler_read) += 1;
  EXPECT_EQ(own_read, kOwnRecords);
  EXPECT_EQ(handler_read, g_handler_records.load()) << "of " << signals_sent << " signals sent";
  EXPECT_GT(g_handler_records.load(), 0u);
}

TEST(NestedWriter, EachDropIsCountedWithItsCause) {
  TempDir dir;
  const std::string name = unique_stream_name("causes");
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  ASSERT_GE(stream, 0);
  using collector::DropCause;
  const uint64_t finished = collector::dropped_records(DropCause::kThreadFinished);
  const uint64_t unwritable = collector::dropped_records(DropCause::kUnwritable);
  on_writer_thread([&] {
    EXPECT_FALSE(collector::write_record(stream, 0, "", 0));
    collector::finish_thread_streams();
    EXPECT_FALSE(collector::write_record(stream, 1, "late", 4));
  });
  EXPECT_EQ(collector::dropped_records(DropCause::kUnwritable), unwritable + 1);
  EXPECT_EQ(collector::dropped_records(DropCause::kThreadFinished), finished + 1);
  EXPECT_STREQ(collector::drop_cause_name(DropCause::kBlockBusy), "block_busy");
}

}  // namespace
}  // namespace lumen::test
