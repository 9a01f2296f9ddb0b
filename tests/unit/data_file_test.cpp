// The data-file format end to end: records written by the collector's stream
// writer read back by the analysis reader, and the reader's answers to torn,
// truncated, corrupt files and files of another format version.
#include <gtest/gtest.h>

#include <cstddef>

#include "data_file_support.h"
#include "format_error.h"
#include "test_support.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using analysis::FormatError;

constexpr uint16_t kMaxFittingPayload = LUMEN_BLOCK_BYTES - sizeof(lumen_block_header) - 4;  // 65516

// Records of several kinds and payload sizes (aligned and not), with
// contents that differ record by record, and one that fills a whole block.
std::vector<Record> sample_records() {
  static const uint16_t kSizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 13, 64, 100, 255, 1000, 4093, 4096};
  static const uint16_t kKinds[] = {1, 2, 7, 300, 0xffff};
  std::vector<Record> records;
  for (size_t i = 0; i < 600; ++i) {
    Record r;
    r.kind = kKinds[i % std::size(kKinds)];
    r.payload.resize(kSizes[i % std::size(kSizes)]);
    for (size_t j = 0; j < r.payload.size(); ++j) r.payload[j] = static_cast<char>((i * 31 + j * 7) & 0xff);
    records.push_back(std::move(r));
    if (i == 300) records.push_back({5, std::string(kMaxFittingPayload, 'M')});
  }
  return records;
}

// The blocks the writer must use for `records`, each filled until the next
// record does not fit.
uint64_t expected_blocks(const std::vector<Record>& records) {
  uint64_t blocks = 0;
  uint64_t used = LUMEN_BLOCK_BYTES;
  for (const Record& r : records) {
    const uint32_t span = lumen_record_span(static_cast<uint16_t>(r.payload.size()));
    if (used + span > LUMEN_BLOCK_BYTES) {
      ++blocks;
      used = sizeof(lumen_block_header);
    }
    used += span;
  }
  return blocks;
}

struct WrittenFile {
  fs::path path;
  std::vector<Record> records;
  uint32_t thread_id = 0;
};

WrittenFile write_file(const TempDir& dir, const std::string& base, std::vector<Record> records) {
  WrittenFile written;
  const std::string name = unique_stream_name(base);
  written.path = dir / name;
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  EXPECT_GE(stream, 0);
  written.thread_id = on_writer_thread([&] {
    for (const Record& r : records)
      EXPECT_TRUE(collector::write_record(stream, r.kind, r.payload.data(), static_cast<uint16_t>(r.payload.size())));
  });
  written.records = std::move(records);
  return written;
}

std::vector<Record> records_of(const std::vector<ReadRecord>& read) {
  std::vector<Record> out;
  for (const ReadRecord& r : read) out.push_back(r.record);
  return out;
}

std::string format_error_of(const fs::path& file) {
  std::string message;
  EXPECT_THROW_MESSAGE(read_all(file), FormatError, message);
  return message;
}

TEST(DataFile, RoundTripRecordByRecord) {
  TempDir dir;
  const WrittenFile file = write_file(dir, "roundtrip", sample_records());
  analysis::DataFileSummary summary;
  const std::vector<ReadRecord> read = read_all(file.path, &summary);
  ASSERT_EQ(read.size(), file.records.size());
  for (size_t i = 0; i < read.size(); ++i) {
    SCOPED_TRACE("record " + std::to_string(i));
    EXPECT_EQ(read[i].record.kind, file.records[i].kind);
    ASSERT_EQ(read[i].record.payload.size(), file.records[i].payload.size());
    EXPECT_TRUE(read[i].record.payload == file.records[i].payload);
    EXPECT_EQ(read[i].thread_id, file.thread_id);
    EXPECT_EQ(read[i].offset % LUMEN_RECORD_ALIGN, 0u);
    if (i > 0) {
      EXPECT_GT(read[i].offset, read[i - 1].offset);
    }
  }
  EXPECT_EQ(summary.records, file.records.size());
  EXPECT_GE(summary.blocks, 3u);
  EXPECT_EQ(summary.blocks, expected_blocks(file.records));
  // A thread's blocks come in runs of 1, 2, 4... blocks mapped at once; the
  // blocks of its last run it never used are holes, which readers skip.
  const uintmax_t size = fs::file_size(file.path);
  EXPECT_EQ(size % LUMEN_BLOCK_BYTES, 0u);
  EXPECT_GE(size, summary.blocks * LUMEN_BLOCK_BYTES);
  EXPECT_LT(size, 2 * summary.blocks * LUMEN_BLOCK_BYTES);
}

TEST(DataFile, OversizedPayloadIsRefusedAndCounted) {
  TempDir dir;
  const std::string name = unique_stream_name("oversized");
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  ASSERT_GE(stream, 0);
  const std::string big(kMaxFittingPayload + 1, 'x');
  on_writer_thread([&] {
    const uint64_t dropped = collector::dropped_records();
    EXPECT_FALSE(collector::write_record(stream, 1, big.data(), static_cast<uint16_t>(big.size())));
    EXPECT_EQ(collector::dropped_records(), dropped + 1);
    EXPECT_TRUE(collector::write_record(stream, 2, big.data(), kMaxFittingPayload));
  });
  const auto read = read_all(dir / name);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_EQ(read[0].record.kind, 2);
  EXPECT_EQ(read[0].record.payload.size(), kMaxFittingPayload);
}

TEST(DataFile, WritesAfterTheThreadFinishedAreDropped) {
  TempDir dir;
  const std::string name = unique_stream_name("finished");
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  ASSERT_GE(stream, 0);
  on_writer_thread([&] {
    EXPECT_TRUE(collector::write_record(stream, 1, "abcd", 4));
    collector::finish_thread_streams();
    EXPECT_FALSE(collector::write_record(stream, 1, "efgh", 4));
    EXPECT_FALSE(collector::write_record(-1, 1, "efgh", 4));
  });
  EXPECT_EQ(records_of(read_all(dir / name)), (std::vector<Record>{{1, "abcd"}}));
}

TEST(DataFile, OpenStreamReusesANameAndRefusesLongNames) {
  TempDir dir;
  const std::string name = unique_stream_name("reopened");
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  ASSERT_GE(stream, 0);
  EXPECT_EQ(collector::open_stream(dir.path().c_str(), name.c_str()), stream);
  EXPECT_EQ(collector::open_stream(dir.path().c_str(), std::string(64, 'n').c_str()), -1);
  EXPECT_EQ(collector::open_stream((dir / "missing").c_str(), unique_stream_name("nodir").c_str()), -1);
}

TEST(DataFile, BlocksOfTwoThreadsCarryTheirThreadIds) {
  TempDir dir;
  const std::string name = unique_stream_name("threads");
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  ASSERT_GE(stream, 0);
  const uint32_t first = on_writer_thread([&] { EXPECT_TRUE(collector::write_record(stream, 1, "one", 3)); });
  const uint32_t second = on_writer_thread([&] { EXPECT_TRUE(collector::write_record(stream, 2, "two!", 4)); });
  analysis::DataFileSummary summary;
  const auto read = read_all(dir / name, &summary);
  EXPECT_EQ(summary.blocks, 2u);
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].record, (Record{1, "one"}));
  EXPECT_EQ(read[0].thread_id, first);
  EXPECT_EQ(read[1].record, (Record{2, "two!"}));
  EXPECT_EQ(read[1].thread_id, second);
}

TEST(DataFile, AppendsToAnExistingFileAfterItsBlocks) {
  TempDir dir;
  const std::string name = unique_stream_name("existing");
  // A file holding one block and the first bytes of another (cut short).
  std::string content = make_block(42, {{1, "old"}, {2, "older"}});
  content += make_block(43, {{3, "cut"}}).substr(0, 100);
  write_text(dir / name, content);
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  ASSERT_GE(stream, 0);
  const uint32_t tid = on_writer_thread([&] { EXPECT_TRUE(collector::write_record(stream, 4, "new", 3)); });
  const auto read = read_all(dir / name);
  EXPECT_EQ(records_of(read), (std::vector<Record>{{1, "old"}, {2, "older"}, {3, "cut"}, {4, "new"}}));
  ASSERT_EQ(read.size(), 4u);
  EXPECT_EQ(read[0].thread_id, 42u);
  EXPECT_EQ(read[3].thread_id, tid);
  EXPECT_EQ(read[3].offset, 2 * LUMEN_BLOCK_BYTES + sizeof(lumen_block_header));
}

TEST(DataFile, ZeroedLastRecordWordEndsTheFileCleanly) {
  TempDir dir;
  const WrittenFile file = write_file(dir, "torn_last", sample_records());
  const auto before = read_all(file.path);
  const uint32_t zero = 0;
  overwrite(file.path, before.back().offset, &zero, sizeof zero);
  const auto after = read_all(file.path);
  std::vector<Record> expected(file.records.begin(), file.records.end() - 1);
  EXPECT_TRUE(records_of(after) == expected);
}

TEST(DataFile, ZeroWordEndsOnlyItsOwnBlock) {
  TempDir dir;
  const WrittenFile file = write_file(dir, "torn_middle", sample_records());
  const auto before = read_all(file.path);
  // Tear the 10th record of the first block; the later blocks still count.
  const uint32_t zero = 0;
  overwrite(file.path, before[10].offset, &zero, sizeof zero);
  std::vector<Record> expected(file.records.begin(), file.records.begin() + 10);
  for (const ReadRecord& r : before)
    if (r.offset >= LUMEN_BLOCK_BYTES) expected.push_back(r.record);
  EXPECT_TRUE(records_of(read_all(file.path)) == expected);
}

// Records whose offset is below `cut` and which end before it.
std::vector<Record> records_before(const std::vector<ReadRecord>& read, uint64_t cut) {
  std::vector<Record> out;
  for (const ReadRecord& r : read)
    if (r.offset + lumen_record_span(static_cast<uint16_t>(r.record.payload.size())) <= cut) out.push_back(r.record);
  return out;
}

TEST(DataFile, TruncatedMidRecordReadsUpToTheTear) {
  TempDir dir;
  const WrittenFile file = write_file(dir, "truncated", sample_records());
  const auto before = read_all(file.path);
  // A record in the second block with a payload to cut through.
  size_t victim = 0;
  for (size_t i = 0; i < before.size(); ++i)
    if (before[i].offset > LUMEN_BLOCK_BYTES + 64 && before[i].record.payload.size() >= 100) {
      victim = i;
      break;
    }
  ASSERT_GT(victim, 0u);
  for (const uint64_t cut : {before[victim].offset + 4 + before[victim].record.payload.size() / 2,  // mid payload
                             before[victim].offset + 2}) {                                        // mid word
    SCOPED_TRACE("cut at " + std::to_string(cut));
    fs::resize_file(file.path, cut);
    const std::vector<Record> expected(file.records.begin(), file.records.begin() + static_cast<long>(victim));
    EXPECT_TRUE(records_of(read_all(file.path)) == expected);
    EXPECT_TRUE(records_before(before, cut) == expected);
  }
}

TEST(DataFile, TruncatedInsideABlockHeader) {
  TempDir dir;
  const WrittenFile file = write_file(dir, "truncated_header", sample_records());
  const auto before = read_all(file.path);
  fs::resize_file(file.path, LUMEN_BLOCK_BYTES + 8);
  analysis::DataFileSummary summary;
  EXPECT_TRUE(records_of(read_all(file.path, &summary)) == records_before(before, LUMEN_BLOCK_BYTES));
  EXPECT_EQ(summary.blocks, 1u);
}

TEST(DataFile, EmptyFileHasNoRecords) {
  TempDir dir;
  write_text(dir / "empty", "");
  analysis::DataFileSummary summary;
  EXPECT_TRUE(read_all(dir / "empty", &summary).empty());
  EXPECT_EQ(summary.blocks, 0u);
}

TEST(DataFile, MissingFileIsAFormatErrorNamingIt) {
  TempDir dir;
  const std::string message = format_error_of(dir / "absent");
  EXPECT_CONTAINS(message, (dir / "absent").string());
  EXPECT_CONTAINS(message, "cannot open");
}

TEST(DataFile, CorruptBlockMagicNamesFileAndOffset) {
  TempDir dir;
  const WrittenFile file = write_file(dir, "bad_magic", sample_records());
  const uint32_t bad = 0xdeadbeef;
  overwrite(file.path, LUMEN_BLOCK_BYTES, &bad, sizeof bad);
  const std::string message = format_error_of(file.path);
  EXPECT_CONTAINS(message, file.path.string() + " at offset " + std::to_string(LUMEN_BLOCK_BYTES));
  EXPECT_CONTAINS(message, "not a lumen data block");
}

TEST(DataFile, RecordRunningPastItsBlockNamesFileAndOffset) {
  TempDir dir;
  const WrittenFile file = write_file(dir, "overrun", sample_records());
  const auto before = read_all(file.path);
  uint64_t last_in_first_block = 0;
  for (const ReadRecord& r : before)
    if (r.offset < LUMEN_BLOCK_BYTES) last_in_first_block = r.offset;
  const uint32_t word = lumen_record_word(1, 0xffff);
  overwrite(file.path, last_in_first_block, &word, sizeof word);
  const std::string message = format_error_of(file.path);
  EXPECT_CONTAINS(message, file.path.string() + " at offset " + std::to_string(last_in_first_block));
  EXPECT_CONTAINS(message, "record of 65535 bytes runs past its block");
}

TEST(DataFile, RecordRunningPastAHandMadeBlock) {
  TempDir dir;
  std::string block = make_block(1, {{1, "abcd"}});
  const uint32_t word = lumen_record_word(9, 0x8000);
  const size_t at = LUMEN_BLOCK_BYTES - 16;  // 4 + 32768 bytes cannot fit here
  std::memcpy(block.data() + at, &word, sizeof word);
  // The record at `at` is only reached when nothing zero precedes it: fill
  // the space between with empty records of kind 1.
  for (size_t p = sizeof(lumen_block_header) + 8; p < at; p += 4) {
    const uint32_t filler = lumen_record_word(1, 0);
    std::memcpy(block.data() + p, &filler, 4);
  }
  write_text(dir / "handmade", block);
  const std::string message = format_error_of(dir / "handmade");
  EXPECT_CONTAINS(message, (dir / "handmade").string() + " at offset " + std::to_string(at));
  EXPECT_CONTAINS(message, "runs past its block");
}

TEST(DataFile, NewerMajorVersionNeedsANewerLumen) {
  TempDir dir;
  write_text(dir / "future", make_block(1, {{1, "abcd"}}, LUMEN_BLOCK_BYTES, LUMEN_FORMAT_MAJOR + 1, 3));
  const std::string message = format_error_of(dir / "future");
  EXPECT_CONTAINS(message, (dir / "future").string() + " at offset 0");
  EXPECT_CONTAINS(message, "format " + std::to_string(LUMEN_FORMAT_MAJOR + 1) + ".3");
  EXPECT_CONTAINS(message, "a newer lumen is needed");
}

TEST(DataFile, OlderMajorVersionIsRefused) {
  TempDir dir;
  write_text(dir / "past", make_block(1, {{1, "abcd"}}, LUMEN_BLOCK_BYTES, 0, 7));
  const std::string message = format_error_of(dir / "past");
  EXPECT_CONTAINS(message, (dir / "past").string() + " at offset 0: written in experiment format 0.7");
  EXPECT_CONTAINS(message, "this lumen reads format " + std::to_string(LUMEN_FORMAT_MAJOR) + ".x only");
}

TEST(DataFile, NewerMajorVersionInALaterBlockOfAWrittenFile) {
  TempDir dir;
  const WrittenFile file = write_file(dir, "future_block", sample_records());
  const uint16_t major = LUMEN_FORMAT_MAJOR + 1;
  overwrite(file.path, 2 * LUMEN_BLOCK_BYTES + offsetof(lumen_block_header, format_major), &major, sizeof major);
  const std::string message = format_error_of(file.path);
  EXPECT_CONTAINS(message, file.path.string() + " at offset " + std::to_string(2 * LUMEN_BLOCK_BYTES));
  EXPECT_CONTAINS(message, "a newer lumen is needed");
}

TEST(DataFile, NewerMinorVersionIsRead) {
  TempDir dir;
  write_text(dir / "minor", make_block(5, {{1, "abcd"}, {2, ""}}, LUMEN_BLOCK_BYTES, LUMEN_FORMAT_MAJOR, 9));
  EXPECT_EQ(records_of(read_all(dir / "minor")), (std::vector<Record>{{1, "abcd"}, {2, ""}}));
}

TEST(DataFile, UnclaimedBlockIsSkipped) {
  TempDir dir;
  // A block a writer reserved but never got to (all zeros), between two.
  write_text(dir / "gap", make_block(1, {{1, "a"}}) + std::string(LUMEN_BLOCK_BYTES, '\0') + make_block(2, {{2, "b"}}));
  analysis::DataFileSummary summary;
  const auto read = read_all(dir / "gap", &summary);
  EXPECT_EQ(records_of(read), (std::vector<Record>{{1, "a"}, {2, "b"}}));
  EXPECT_EQ(summary.blocks, 2u);
  EXPECT_EQ(read[1].thread_id, 2u);
}

TEST(DataFile, InvalidBlockSize) {
  TempDir dir;
  write_text(dir / "size", make_block(1, {{1, "a"}}, 100));
  const std::string message = format_error_of(dir / "size");
  EXPECT_CONTAINS(message, (dir / "size").string() + " at offset 0");
  EXPECT_CONTAINS(message, "block size 100 is not valid");
}

// A record word of 0 means "end of what this block holds", so a kind-0 record
// with no payload must either be refused or be readable, and must never hide
// the records the thread writes after it.
TEST(DataFile, RecordsAfterAnEmptyKindZeroRecordAreNotLost) {
  TempDir dir;
  const std::string name = unique_stream_name("kind_zero");
  const int stream = collector::open_stream(dir.path().c_str(), name.c_str());
  ASSERT_GE(stream, 0);
  bool zero_written = false;
  on_writer_thread([&] {
    EXPECT_TRUE(collector::write_record(stream, 1, "before", 6));
    zero_written = collector::write_record(stream, 0, nullptr, 0);
    EXPECT_TRUE(collector::write_record(stream, 2, "after", 5));
  });
  std::vector<Record> expected{{1, "before"}};
  if (zero_written) expected.push_back({0, ""});
  expected.push_back({2, "after"});
  EXPECT_EQ(records_of(read_all(dir / name)), expected)
      << "write_record(kind 0, 0 bytes) returned " << zero_written
      << "; a record the writer accepted (and every later one in its block) must be readable";
}

}  // namespace
}  // namespace lumen::test
