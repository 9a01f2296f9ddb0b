// The heap plugin's host side on its own: batches encoded as the collector
// encodes them are decoded back field by field, and the pairing of frees with
// allocations is fed operations directly (realloc chains, frees of unknown
// pointers, double frees, records of threads out of time order, the peak).
#include <gtest/gtest.h>
#include <lumen/record_format.h>
#include <zstd.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "analysis/heap_latest.h"
#include "analysis/heap_sweep.h"
#include "heap_compact.h"
#include "heap_paired.h"
#include "analysis/heap_timeline.h"

namespace lumen::heap {
namespace {

// Encodes events into one batch record payload, as the collector does.
std::vector<uint8_t> encode_batch(const std::vector<HeapEvent>& events, uint32_t thread_id) {
  std::vector<uint8_t> payload(sizeof(HeapBatch) + events.size() * kMaxEventBytes);
  const uint64_t base = events.empty() ? 0
                        : events[0].type == EventType::kRealloc ? events[0].free_time_ns
                                                                : events[0].time_ns;
  const HeapBatch header{base, thread_id, static_cast<uint32_t>(events.size())};
  std::memcpy(payload.data(), &header, sizeof header);
  uint64_t previous_time = base, previous_address = 0;
  uint8_t* out = payload.data() + sizeof header;
  for (const HeapEvent& e : events) out = encode_heap_event(out, e, previous_time, previous_address);
  payload.resize(static_cast<size_t>(out - payload.data()));
  return payload;
}

struct Collected final : HeapRecordReader {
  std::vector<HeapStart> starts;
  std::vector<HeapOp> ops;
  void start(const HeapStart& s) override { starts.push_back(s); }
  void op(const HeapOp& o) override { ops.push_back(o); }
};

HeapEvent alloc(Allocator a, uint64_t time, uint64_t address, uint64_t size, uint64_t stack) {
  return {EventType::kAlloc, a, time, 0, 0, address, size, stack};
}
HeapEvent dealloc(EventType type, uint64_t time, uint64_t address) {
  return {type, Allocator::kMalloc, time, 0, 0, address, 0, 0};
}
HeapEvent reallocation(uint64_t free_time, uint64_t time, uint64_t old_address, uint64_t address, uint64_t size,
                       uint64_t stack) {
  return {EventType::kRealloc, Allocator::kRealloc, time, free_time, old_address, address, size, stack};
}

TEST(HeapRecords, EveryEventTypeSurvivesEncodingAndDecoding) {
  const std::vector<HeapEvent> events = {
      alloc(Allocator::kMalloc, 1'000'000, 0x7f0000001000, 1999993, 5),
      alloc(Allocator::kCalloc, 1'000'050, 0x7f0000000010, 1001, 0),  // lower address: a negative delta
      dealloc(EventType::kFree, 1'000'100, 0x7f0000001000),
      reallocation(1'000'200, 1'000'260, 0x7f0000000010, 0x5500000020, 70001, 7),
      reallocation(1'000'300, 1'000'300, 0, 0x5500009000, 3, 8),  // realloc(NULL, n)
      alloc(Allocator::kMmap, 1'000'400, 0x7fff00000000, 100001, LUMEN_NO_STACK),
      dealloc(EventType::kUnmap, 1'000'500, 0x7fff00000000),
      alloc(Allocator::kPvalloc, 1'000'600, 0x10, 9999, 123456789),
  };
  const std::vector<uint8_t> payload = encode_batch(events, 4242);
  Collected got;
  std::string error;
  ASSERT_TRUE(decode_heap_record(kBatchRecord, payload.data(), static_cast<uint16_t>(payload.size()), got, error))
      << error;
  ASSERT_EQ(got.ops.size(), 9u);  // the realloc that freed yields a free and an allocation

  const auto expect_op = [&](size_t i, uint64_t time, uint64_t address, uint64_t size, uint64_t stack,
                             bool allocation, bool mapping, Allocator allocator) {
    SCOPED_TRACE(i);
    const HeapOp& op = got.ops[i];
    EXPECT_EQ(op.time_ns, time);
    EXPECT_EQ(op.address, address);
    EXPECT_EQ(op.allocation, allocation);
    EXPECT_EQ(op.mapping, mapping);
    EXPECT_EQ(op.thread_id, 4242u);
    if (allocation) {
      EXPECT_EQ(op.size, size);
      EXPECT_EQ(op.stack_id, stack);
      EXPECT_EQ(op.allocator, allocator);
    }
  };
  expect_op(0, 1'000'000, 0x7f0000001000, 1999993, 5, true, false, Allocator::kMalloc);
  expect_op(1, 1'000'050, 0x7f0000000010, 1001, 0, true, false, Allocator::kCalloc);
  expect_op(2, 1'000'100, 0x7f0000001000, 0, 0, false, false, Allocator::kMalloc);
  expect_op(3, 1'000'200, 0x7f0000000010, 0, 0, false, false, Allocator::kRealloc);
  expect_op(4, 1'000'260, 0x5500000020, 70001, 7, true, false, Allocator::kRealloc);
  expect_op(5, 1'000'300, 0x5500009000, 3, 8, true, false, Allocator::kRealloc);
  expect_op(6, 1'000'400, 0x7fff00000000, 100001, LUMEN_NO_STACK, true, true, Allocator::kMmap);
  expect_op(7, 1'000'500, 0x7fff00000000, 0, 0, false, true, Allocator::kMalloc);
  expect_op(8, 1'000'600, 0x10, 9999, 123456789, true, false, Allocator::kPvalloc);
}

// A batch at a time as the compressor gathers them: a 2-byte size and the payload.
std::vector<uint8_t> gathered(const std::vector<std::vector<uint8_t>>& batches) {
  std::vector<uint8_t> raw;
  for (const auto& b : batches) {
    const auto bytes = static_cast<uint16_t>(b.size());
    raw.insert(raw.end(), reinterpret_cast<const uint8_t*>(&bytes), reinterpret_cast<const uint8_t*>(&bytes) + 2);
    raw.insert(raw.end(), b.begin(), b.end());
  }
  return raw;
}

std::vector<uint8_t> zstd_record(const std::vector<uint8_t>& raw, uint32_t batch_count, int level = 1) {
  std::vector<uint8_t> record(sizeof(HeapCompressed) + ZSTD_compressBound(raw.size()));
  const size_t size = ZSTD_compress(record.data() + sizeof(HeapCompressed), record.size() - sizeof(HeapCompressed),
                                    raw.data(), raw.size(), level);
  EXPECT_FALSE(ZSTD_isError(size));
  const HeapCompressed header{static_cast<uint32_t>(raw.size()), batch_count};
  std::memcpy(record.data(), &header, sizeof header);
  record.resize(sizeof header + size);
  return record;
}

// A kCompressedRecord as the collector's compressor wrote it before the
// compact form: the gathered batches in one zstd frame.
std::vector<uint8_t> compress_batches(const std::vector<std::vector<uint8_t>>& batches, int level = 1) {
  return zstd_record(gathered(batches), static_cast<uint32_t>(batches.size()), level);
}

// A record `decode_heap_record` must refuse, saying `expected`.
void expect_refused(uint16_t kind, const std::vector<uint8_t>& record, const std::string& expected) {
  SCOPED_TRACE(expected);
  Collected ignored;
  std::string why;
  EXPECT_FALSE(decode_heap_record(kind, record.data(), static_cast<uint16_t>(record.size()), ignored, why));
  EXPECT_NE(why.find(expected), std::string::npos) << why;
}

bool same_op(const HeapOp& a, const HeapOp& b) {
  return a.time_ns == b.time_ns && a.address == b.address && a.size == b.size && a.stack_id == b.stack_id &&
         a.thread_id == b.thread_id && a.allocation == b.allocation && a.mapping == b.mapping &&
         a.allocator == b.allocator;
}

// Many batches of two threads, as a busy target writes them: what the
// compressed record yields is, op for op, what the plain records yield.
TEST(HeapCompressedRecords, ReadBackExactlyWhatThePlainBatchesSay) {
  std::vector<std::vector<uint8_t>> batches;
  uint64_t time = 5'000'000;
  for (int b = 0; b < 12; ++b) {
    std::vector<HeapEvent> events;
    for (int i = 0; i < 300; ++i) {
      const uint64_t address = 0x5555'0000'0000 + ((b * 300 + i) * 7919 % 4096) * 16;
      time += 37 + i % 11;
      if (i % 3 == 2)
        events.push_back(dealloc(EventType::kFree, time, address));
      else if (i % 17 == 5)
        events.push_back(reallocation(time, time + 9, address, address + 0x100000, 16 + i % 256, i % 7));
      else
        events.push_back(alloc(Allocator::kMalloc, time, address, 16 + (i * 31) % 256, (b + i) % 5));
      time += 10;
    }
    batches.push_back(encode_batch(events, 100 + static_cast<uint32_t>(b % 2)));
  }
  Collected plain;
  std::string error;
  for (const auto& b : batches)
    ASSERT_TRUE(decode_heap_record(kBatchRecord, b.data(), static_cast<uint16_t>(b.size()), plain, error)) << error;
  const std::vector<uint8_t> record = compress_batches(batches);
  ASSERT_LT(record.size(), 65536u);
  Collected compressed;
  ASSERT_TRUE(decode_heap_record(kCompressedRecord, record.data(), static_cast<uint16_t>(record.size()), compressed,
                                 error))
      << error;
  ASSERT_EQ(compressed.ops.size(), plain.ops.size());
  for (size_t i = 0; i < plain.ops.size(); ++i) EXPECT_TRUE(same_op(compressed.ops[i], plain.ops[i])) << "op " << i;
}

TEST(HeapCompressedRecords, CorruptOrLyingRecordsAreRefusedWithAReason) {
  const std::vector<uint8_t> batch =
      encode_batch({alloc(Allocator::kMalloc, 10, 0x1000, 24, 1), dealloc(EventType::kFree, 20, 0x1000)}, 7);
  const std::vector<uint8_t> good = compress_batches({batch, batch});
  std::string error;
  Collected got;
  ASSERT_TRUE(decode_heap_record(kCompressedRecord, good.data(), static_cast<uint16_t>(good.size()), got, error))
      << error;
  const auto refused = [](const std::vector<uint8_t>& record, const std::string& expected) {
    expect_refused(kCompressedRecord, record, expected);
  };
  std::vector<uint8_t> damaged = good;
  for (size_t i = sizeof(HeapCompressed) + 4; i < damaged.size(); ++i) damaged[i] ^= 0x5a;
  refused(damaged, "does not decompress");
  refused(std::vector<uint8_t>(good.begin(), good.begin() + 6), "header alone");
  refused(std::vector<uint8_t>(good.begin(), good.end() - 3), "does not decompress");
  std::vector<uint8_t> lying = good;
  HeapCompressed header;
  std::memcpy(&header, lying.data(), sizeof header);
  header.raw_bytes = 1u << 30;
  std::memcpy(lying.data(), &header, sizeof header);
  refused(lying, "at most");
  std::memcpy(&header, good.data(), sizeof header);
  header.batch_count = 3;
  lying = good;
  std::memcpy(lying.data(), &header, sizeof header);
  refused(lying, "ends inside batch 2");
  header.batch_count = 1;
  std::memcpy(lying.data(), &header, sizeof header);
  refused(lying, "bytes after its 1 batches");
}

// ---- the compact form (heap_compact.h) ----

// The encoder's working memory, as the collector maps it (smaller tables:
// a full one must only cost compactness).
struct Scratch {
  explicit Scratch(size_t address_slots = 1 << 12, size_t pair_slots = 1 << 8, size_t thread_slots = 1 << 4)
      : addresses(address_slots), pairs(pair_slots), threads(thread_slots),
        touched(pair_slots + thread_slots), sections(kCompactSections, std::vector<uint8_t>(kMaxCompactBytes)) {
    s.addresses = addresses.data();
    s.address_slots = address_slots;
    s.pairs = pairs.data();
    s.pair_slots = pair_slots;
    s.threads = threads.data();
    s.thread_slots = thread_slots;
    s.touched = touched.data();
    for (int i = 0; i < kCompactSections; ++i) s.sections[i] = sections[i].data();
  }
  std::vector<CompactScratch::AddressSlot> addresses;
  std::vector<CompactScratch::PairSlot> pairs;
  std::vector<CompactScratch::ThreadSlot> threads;
  std::vector<uint32_t> touched;
  std::vector<std::vector<uint8_t>> sections;
  CompactScratch s{};
};

// A kCompactRecord as the collector's compressor writes it.
std::vector<uint8_t> compact_record(const std::vector<std::vector<uint8_t>>& batches, Scratch& scratch) {
  const std::vector<uint8_t> raw = gathered(batches);
  std::vector<uint8_t> compact(kMaxCompactBytes);
  const size_t bytes =
      compact_batches(raw.data(), raw.size(), static_cast<uint32_t>(batches.size()), compact.data(), scratch.s);
  EXPECT_GT(bytes, 0u);
  compact.resize(bytes);
  return zstd_record(compact, static_cast<uint32_t>(batches.size()));
}

// Batches of `threads` threads churning blocks as a busy target does: each
// frees the block it allocated 8 allocations ago, some blocks are freed by
// another thread and reused by a third, some frees name nothing traced,
// reallocs move blocks, and (size, stack) pairs repeat.
std::vector<std::vector<uint8_t>> churning_batches(int batch_count, int threads, int events_per_batch) {
  std::vector<std::vector<uint8_t>> batches;
  std::vector<std::vector<uint64_t>> held(threads);
  uint64_t time = 7'000'000, next_address = 0x5555'0000'1000;
  std::mt19937 random(42);
  for (int b = 0; b < batch_count; ++b) {
    const int t = b % threads;
    std::vector<HeapEvent> events;
    for (int i = 0; i < events_per_batch; ++i) {
      time += 20 + random() % 300;
      const uint32_t pick = random() % 20;
      if (held[t].size() >= 8 && pick < 9) {
        events.push_back(dealloc(EventType::kFree, time, held[t].front()));
        held[t].erase(held[t].begin());
      } else if (pick == 9 && !held[(t + 1) % threads].empty()) {  // a block of another thread
        events.push_back(dealloc(EventType::kFree, time, held[(t + 1) % threads].back()));
        held[(t + 1) % threads].pop_back();
      } else if (pick == 10) {
        events.push_back(dealloc(EventType::kFree, time, 0x10000 + random() % 4096));  // nothing traced
      } else if (pick == 11 && !held[t].empty()) {
        const uint64_t moved = next_address += 64;
        events.push_back(reallocation(time, time + 40, held[t].back(), moved, 16 + random() % 64, random() % 3));
        held[t].back() = moved;
        time += 40;
      } else if (pick == 12) {
        events.push_back(alloc(Allocator::kMmap, time, 0x7f00'0000'0000 + (random() % 64) * 4096, 4096, LUMEN_NO_STACK));
      } else {
        const uint64_t address = random() % 4 == 0 ? (next_address += 32) : 0x5555'0000'1000 + (random() % 512) * 32;
        events.push_back(alloc(Allocator::kMalloc, time, address, 16 + (random() % 16) * 8, random() % 4));
        held[t].push_back(address);
      }
    }
    batches.push_back(encode_batch(events, 300 + static_cast<uint32_t>(t)));
  }
  return batches;
}

void expect_compact_reads_as_plain(const std::vector<std::vector<uint8_t>>& batches, Scratch& scratch) {
  Collected plain;
  std::string error;
  size_t plain_batches = 0;
  for (const auto& b : batches) {
    ASSERT_TRUE(decode_heap_record(kBatchRecord, b.data(), static_cast<uint16_t>(b.size()), plain, error)) << error;
    ++plain_batches;
  }
  const std::vector<uint8_t> record = compact_record(batches, scratch);
  ASSERT_LT(record.size(), 65536u);
  Collected compact;
  ASSERT_TRUE(
      decode_heap_record(kCompactRecord, record.data(), static_cast<uint16_t>(record.size()), compact, error))
      << error;
  ASSERT_EQ(compact.ops.size(), plain.ops.size());
  for (size_t i = 0; i < plain.ops.size(); ++i) ASSERT_TRUE(same_op(compact.ops[i], plain.ops[i])) << "op " << i;
  // And it leaves the encoder's open-addressed tables as it found them.
  for (const auto& slot : scratch.pairs) ASSERT_EQ(slot.index_plus_one, 0u);
  for (const auto& slot : scratch.threads) ASSERT_EQ(slot.used, 0u);
}

TEST(HeapCompactRecords, ReadBackExactlyWhatThePlainBatchesSay) {
  Scratch scratch;
  expect_compact_reads_as_plain(churning_batches(24, 3, 250), scratch);
  // The same scratch again: a second record starts from nothing.
  expect_compact_reads_as_plain(churning_batches(10, 2, 300), scratch);
  // Every event type, and one event batches.
  expect_compact_reads_as_plain(
      {encode_batch({alloc(Allocator::kMalloc, 1'000'000, 0x7f0000001000, 1999993, 5),
                     alloc(Allocator::kCalloc, 1'000'050, 0x7f0000000010, 1001, 0),
                     dealloc(EventType::kFree, 1'000'100, 0x7f0000001000),
                     reallocation(1'000'200, 1'000'260, 0x7f0000000010, 0x5500000020, 70001, 7),
                     reallocation(1'000'300, 1'000'300, 0, 0x5500009000, 3, 8),
                     alloc(Allocator::kMmap, 1'000'400, 0x7fff00000000, 100001, LUMEN_NO_STACK),
                     dealloc(EventType::kUnmap, 1'000'500, 0x7fff00000000)},
                    9),
       encode_batch({dealloc(EventType::kFree, 900'000, 0x5500009000)}, 10)},
      scratch);
}

TEST(HeapCompactRecords, FullTablesOnlyCostCompactness) {
  Scratch tiny(4, 2, 2);  // 4 addresses, room for 1 pair, 1 thread
  expect_compact_reads_as_plain(churning_batches(12, 3, 200), tiny);
}

// A forked child's compressor starts on the tables its parent's compressor
// was using at the fork: emptied, they read back exactly again.
TEST(HeapCompactRecords, TablesLeftInUseAreEmptiedByAReset) {
  Scratch scratch;
  for (size_t i = 0; i < scratch.pairs.size(); i += 3) scratch.pairs[i] = {24 + i, 2, 1, 0};
  for (auto& slot : scratch.threads) slot = {300, 5, 1, 0};
  compact_scratch_reset(scratch.s);
  expect_compact_reads_as_plain(churning_batches(6, 3, 100), scratch);
}

// The address cache's entries carry their record's generation; when the
// generation number wraps, none of an earlier record may be taken for one of
// this record.
TEST(HeapCompactRecords, RecordsAfterTheGenerationWrapsReadExactly) {
  Scratch scratch(64);
  const auto batches = churning_batches(2, 2, 40);
  const std::vector<uint8_t> raw = gathered(batches);
  std::vector<uint8_t> compact(kMaxCompactBytes);
  for (uint32_t n = 0; n < (1u << (32 - CompactScratch::kOrdinalBits)) - 2; ++n)
    ASSERT_GT(compact_batches(raw.data(), raw.size(), 2, compact.data(), scratch.s), 0u);
  for (int n = 0; n < 4; ++n) {
    SCOPED_TRACE(scratch.s.generation);
    expect_compact_reads_as_plain(churning_batches(3, 2, 60 + n), scratch);
  }
}

TEST(HeapCompactRecords, AreSmallerThanThePlainBatchesCompressed) {
  Scratch scratch;
  const auto batches = churning_batches(24, 3, 250);
  const std::vector<uint8_t> raw = gathered(batches);
  const size_t plain = zstd_record(raw, static_cast<uint32_t>(batches.size())).size();
  const size_t compact = compact_record(batches, scratch).size();
  EXPECT_LT(compact, plain);
}

TEST(HeapCompactRecords, CorruptOrLyingRecordsAreRefusedWithAReason) {
  Scratch scratch;
  const auto batches = churning_batches(4, 2, 50);
  const std::vector<uint8_t> good = compact_record(batches, scratch);
  const auto refused = [](const std::vector<uint8_t>& record, const std::string& expected) {
    expect_refused(kCompactRecord, record, expected);
  };
  std::vector<uint8_t> damaged = good;
  for (size_t i = sizeof(HeapCompressed) + 4; i < damaged.size(); ++i) damaged[i] ^= 0x5a;
  refused(damaged, "does not decompress");
  // Well-compressed but lying frames: the decompressed bytes are checked too.
  const std::vector<uint8_t> raw = gathered(batches);
  std::vector<uint8_t> compact(kMaxCompactBytes);
  compact.resize(compact_batches(raw.data(), raw.size(), 4, compact.data(), scratch.s));
  std::vector<uint8_t> truncated(compact.begin(), compact.end() - 1);
  refused(zstd_record(truncated, 4), "compact form");
  refused(zstd_record(compact, 5), "ends inside batch 4");
  refused(zstd_record(compact, 3), "left in the");
  // A free naming an allocation its thread never made in the record.
  std::vector<uint8_t> lying;
  for (const uint64_t length : {3, 2, 2, 0, 0, 1, 0}) lying.push_back(static_cast<uint8_t>(length));
  for (const uint8_t byte : {7, 2, 0}) lying.push_back(byte);  // batch: thread 7, 2 events, base 0
  lying.push_back(0x10);  // kFree
  lying.push_back(0x10);
  lying.push_back(2);  // Δtime 1
  lying.push_back(2);
  lying.push_back(3);  // the 3rd latest allocation: there is none
  refused(zstd_record(lying, 1), "free references section");
  const std::vector<uint8_t> bad_type = {3, 1, 0, 0, 0, 0, 0, /*batch*/ 7, 1, 0, /*tag*/ 0x70};
  refused(zstd_record(bad_type, 1), "unknown type");
}

// Frames that decompress well but whose compact bytes were damaged: each is
// read or refused with a reason, never trusted past its bounds (a crash or
// a hang fails the test).
TEST(HeapCompactRecords, DamagedFramesAreReadOrRefusedWithAReason) {
  Scratch scratch;
  const auto batches = churning_batches(6, 3, 80);
  const std::vector<uint8_t> raw = gathered(batches);
  std::vector<uint8_t> compact(kMaxCompactBytes);
  compact.resize(compact_batches(raw.data(), raw.size(), 6, compact.data(), scratch.s));
  std::mt19937 random(7);
  size_t refused = 0;
  for (int n = 0; n < 3000; ++n) {
    std::vector<uint8_t> damaged = compact;
    for (uint32_t flips = 1 + random() % 4; flips > 0; --flips)
      damaged[random() % damaged.size()] ^= static_cast<uint8_t>(1 + random() % 255);
    const std::vector<uint8_t> record = zstd_record(damaged, 6 + (random() % 8 == 0 ? random() % 3 : 0));
    Collected got;
    std::string why;
    if (!decode_heap_record(kCompactRecord, record.data(), static_cast<uint16_t>(record.size()), got, why)) {
      ++refused;
      EXPECT_NE(why.find("compact form"), std::string::npos) << why;
    }
  }
  EXPECT_GT(refused, 0u);
}

// ---- the paired form: frees name their allocations, times are marks ----

// A plain paired batch, encoded field by field as the collector does.
struct PairedBatch {
  HeapPairedBatch header;
  std::vector<uint8_t> events;
  void tag(EventType type, Allocator a = Allocator::kMalloc, bool freed_old = false) {
    events.push_back(static_cast<uint8_t>(static_cast<uint8_t>(type) << 4 | static_cast<uint8_t>(a) |
                                          (freed_old ? kTagFreedOld : 0)));
    header.event_count += 1;
  }
  void number(uint64_t v) {
    uint8_t buffer[10];
    events.insert(events.end(), buffer, put_varint(buffer, v));
  }
  void alloc(uint64_t size, uint64_t stack, Allocator a = Allocator::kMalloc) {
    tag(EventType::kAlloc, a);
    number(size);
    number(stack + 1);
  }
  void free_own(uint64_t k, EventType type = EventType::kFree) {
    tag(type);
    number(k << 2);
  }
  void free_other(uint32_t thread, uint64_t ordinal) {
    tag(EventType::kFree);
    number(uint64_t{thread} << 2 | 1);
    number(ordinal);
  }
  void free_address(uint64_t address) {
    tag(EventType::kFree);
    number(2);
    number(address);
  }
  void realloc_own(uint64_t k, uint64_t size, uint64_t stack) {
    tag(EventType::kRealloc, Allocator::kRealloc, true);
    number(k << 2);
    number(size);
    number(stack + 1);
  }
  void mark(uint64_t advance) {
    tag(EventType::kMark);
    number(advance);
  }
  std::vector<uint8_t> payload() const {
    std::vector<uint8_t> out(sizeof header);
    std::memcpy(out.data(), &header, sizeof header);
    out.insert(out.end(), events.begin(), events.end());
    return out;
  }
};

// Threads that allocate, free their own blocks and each other's, reallocate,
// map and unmap, with marks between: as the collector's batches say it.
std::vector<std::vector<uint8_t>> paired_batches(int threads, int batches_per_thread, int events) {
  std::mt19937 random(11);
  std::vector<std::vector<uint8_t>> out;
  std::vector<uint64_t> ordinal(threads, 0), mark(threads, 1'000'000);
  for (int b = 0; b < batches_per_thread; ++b)
    for (int t = 0; t < threads; ++t) {
      PairedBatch batch{{mark[t] += 7, static_cast<uint32_t>(40 + t), 0, ordinal[t]}, {}};
      for (int e = 0; e < events; ++e) {
        const uint32_t pick = random() % 16;
        if (pick < 6 || ordinal[t] == 0) {
          batch.alloc(16 + random() % 256, random() % 5, pick == 1 ? Allocator::kCalloc : Allocator::kMalloc);
          ++ordinal[t];
        } else if (pick < 10) {
          batch.free_own(1 + random() % ordinal[t]);
        } else if (pick == 10) {
          batch.free_other(40 + static_cast<uint32_t>(random() % threads), random() % 1000);
        } else if (pick == 11) {
          batch.free_address(0x5555'0000'0000 + random() % 100000);
        } else if (pick == 12) {
          batch.realloc_own(1 + random() % ordinal[t], 1 + random() % 100000, 3);
          ++ordinal[t];
        } else if (pick == 13) {
          batch.alloc(4096, LUMEN_NO_STACK, Allocator::kMmap);
          ++ordinal[t];
          batch.free_own(1, EventType::kUnmap);
        } else {
          const uint64_t advance = 1 + random() % 3'000'000;
          batch.mark(advance);
          mark[t] += advance;
        }
      }
      out.push_back(batch.payload());
    }
  return out;
}

std::vector<uint8_t> paired_compact_record(const std::vector<std::vector<uint8_t>>& batches) {
  const std::vector<uint8_t> raw = gathered(batches);
  std::vector<std::vector<uint8_t>> sections(kPairedSections, std::vector<uint8_t>(kMaxCompactBytes));
  uint8_t* pointers[kPairedSections];
  for (int i = 0; i < kPairedSections; ++i) pointers[i] = sections[i].data();
  std::vector<uint8_t> compact(kMaxCompactBytes);
  compact.resize(compact_paired_batches(raw.data(), raw.size(), static_cast<uint32_t>(batches.size()),
                                        compact.data(), pointers));
  EXPECT_FALSE(compact.empty());
  return compact;
}

TEST(HeapPairedRecords, FreesNameTheirAllocationsAndEventsHaveTheirMarksTime) {
  PairedBatch batch{{5'000, 7, 0, 10}, {}};
  batch.alloc(100, 1);          // ordinal 10
  batch.alloc(200, 2);          // ordinal 11
  batch.mark(250);
  batch.free_own(2);            // ordinal 10
  batch.free_other(9, 4);       // thread 9's ordinal 4
  batch.free_address(0x1234);   // not seen allocated
  batch.realloc_own(1, 300, 3);  // frees 11, allocates 12
  batch.alloc(4096, LUMEN_NO_STACK, Allocator::kMmap);  // 13
  batch.free_own(1, EventType::kUnmap);
  const std::vector<uint8_t> payload = batch.payload();
  Collected got;
  std::string error;
  ASSERT_TRUE(decode_heap_record(kPairedBatchRecord, payload.data(), static_cast<uint16_t>(payload.size()), got,
                                 error))
      << error;
  const std::vector<HeapOp> expected = {
      {5'000, identity_key(7, 10), 100, 1, 7, true, false, Allocator::kMalloc},
      {5'000, identity_key(7, 11), 200, 2, 7, true, false, Allocator::kMalloc},
      {5'250, identity_key(7, 10), 0, 0, 7, false, false, Allocator::kMalloc},
      {5'250, identity_key(9, 4), 0, 0, 7, false, false, Allocator::kMalloc},
      {5'250, 0x1234, 0, 0, 7, false, false, Allocator::kMalloc},
      {5'250, identity_key(7, 11), 0, 0, 7, false, false, Allocator::kRealloc},
      {5'250, identity_key(7, 12), 300, 3, 7, true, false, Allocator::kRealloc},
      {5'250, identity_key(7, 13), 4096, LUMEN_NO_STACK, 7, true, true, Allocator::kMmap},
      {5'250, identity_key(7, 13), 0, 0, 7, false, true, Allocator::kMalloc},
  };
  ASSERT_EQ(got.ops.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(same_op(got.ops[i], expected[i])) << "op " << i;
  // Paired: 10, 11 and 13 freed, 12 live; the foreign frees pair with nothing.
  LatestByAddress latest;
  for (const HeapOp& op : got.ops) latest.add(op);
  const auto live = latest.live();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live.begin()->second.address, identity_key(7, 12));
}

TEST(HeapPairedRecords, CompactReadsBackExactlyWhatThePlainBatchesSay) {
  const auto batches = paired_batches(5, 4, 300);
  Collected plain;
  std::string error;
  for (const auto& b : batches)
    ASSERT_TRUE(decode_heap_record(kPairedBatchRecord, b.data(), static_cast<uint16_t>(b.size()), plain, error))
        << error;
  const std::vector<uint8_t> record = zstd_record(paired_compact_record(batches), static_cast<uint32_t>(batches.size()));
  Collected compact;
  ASSERT_TRUE(decode_heap_record(kPairedCompactRecord, record.data(), static_cast<uint16_t>(record.size()), compact,
                                 error))
      << error;
  ASSERT_EQ(compact.ops.size(), plain.ops.size());
  for (size_t i = 0; i < plain.ops.size(); ++i) ASSERT_TRUE(same_op(compact.ops[i], plain.ops[i])) << "op " << i;
}

// A program's repeating pattern (each of 4 threads replacing the oldest of
// its 256 blocks, sizes cycling) compacts to less than the plain batches
// compressed as they are, marks between.
TEST(HeapPairedRecords, RepeatingPatternsCompactSmallerThanPlain) {
  std::vector<std::vector<uint8_t>> batches;
  std::vector<uint64_t> ordinal(4, 0);
  for (int b = 0; b < 16; ++b)
    for (uint32_t t = 0; t < 4; ++t) {
      PairedBatch batch{{1'000'000u + b * 4'000'000u + t, t + 1, 0, ordinal[t]}, {}};
      for (int e = 0; e < 600; ++e) {
        if (ordinal[t] >= 256) batch.free_own(256);
        batch.alloc(16 + ordinal[t] % 256, 1);
        ++ordinal[t];
        if (e % 250 == 249) batch.mark(1'000'000 + e);
      }
      batches.push_back(batch.payload());
    }
  const size_t compact = zstd_record(paired_compact_record(batches), static_cast<uint32_t>(batches.size())).size();
  const size_t plain = zstd_record(gathered(batches), static_cast<uint32_t>(batches.size())).size();
  EXPECT_LT(compact, plain);
}

// A free of an identity is its allocation's last event, even where a mark
// says otherwise (an earlier part of the file holding it, merged later).
TEST(HeapPairedRecords, AnIdentityFreedIsNotLiveWhateverTheMarks) {
  LatestByAddress first, later;
  first.add({900, identity_key(3, 0), 0, 0, 4, false, false, Allocator::kMalloc});
  later.add({1000, identity_key(3, 0), 64, 1, 3, true, false, Allocator::kMalloc});
  later.add({1000, identity_key(3, 1), 32, 1, 3, true, false, Allocator::kMalloc});
  first.merge(later);
  const auto live = first.live();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live.begin()->second.address, identity_key(3, 1));
}

TEST(HeapPairedRecords, CorruptOrLyingRecordsAreRefusedWithAReason) {
  const auto refused = [](uint16_t kind, const std::vector<uint8_t>& record, const std::string& expected) {
    expect_refused(kind, record, expected);
  };
  PairedBatch own{{1, 3, 0, 2}, {}};
  own.free_own(3);  // only 2 allocations before
  refused(kPairedBatchRecord, own.payload(), "frees allocation 3 back of 2");
  PairedBatch far{{1, 3, 0, 0}, {}};
  far.free_other(static_cast<uint32_t>(kMaxIdentityThread), 1);
  refused(kPairedBatchRecord, far.payload(), "beyond what identities hold");
  PairedBatch address{{1, 3, 0, 0}, {}};
  address.free_address(kIdentityBit | 5);
  refused(kPairedBatchRecord, address.payload(), "identities' range");
  PairedBatch still{{1, 3, 0, 0}, {}};
  still.mark(0);
  refused(kPairedBatchRecord, still.payload(), "not later");
  PairedBatch cut{{1, 3, 0, 0}, {}};
  cut.alloc(100000, 1);
  std::vector<uint8_t> truncated = cut.payload();
  truncated.pop_back();
  refused(kPairedBatchRecord, truncated, "ends early");
  PairedBatch lying{{1, 3, 5, 0}, {}};
  lying.alloc(1, 1);
  refused(kPairedBatchRecord, lying.payload(), "is missing");
  refused(kPairedBatchRecord, std::vector<uint8_t>(10, 0), "its header alone needs");
  const auto batches = paired_batches(2, 2, 40);
  const std::vector<uint8_t> compact = paired_compact_record(batches);
  refused(kPairedCompactRecord, zstd_record(compact, 5), "ends inside batch 4");
  refused(kPairedCompactRecord, zstd_record(compact, 3), "left in the");
  std::vector<uint8_t> damaged = zstd_record(compact, 4);
  for (size_t i = sizeof(HeapCompressed) + 4; i < damaged.size(); ++i) damaged[i] ^= 0x5a;
  refused(kPairedCompactRecord, damaged, "does not decompress");
  // Damaged sections: read or refused with a reason, never trusted past their bounds.
  std::mt19937 random(5);
  size_t refusals = 0;
  for (int n = 0; n < 3000; ++n) {
    std::vector<uint8_t> bytes = compact;
    for (uint32_t flips = 1 + random() % 4; flips > 0; --flips)
      bytes[random() % bytes.size()] ^= static_cast<uint8_t>(1 + random() % 255);
    const std::vector<uint8_t> record = zstd_record(bytes, 4);
    Collected got;
    std::string why;
    if (!decode_heap_record(kPairedCompactRecord, record.data(), static_cast<uint16_t>(record.size()), got, why)) {
      ++refusals;
      EXPECT_NE(why.find("paired form"), std::string::npos) << why;
    }
  }
  EXPECT_GT(refusals, 0u);
}

TEST(HeapRecords, StartRecordIsPassedOn) {
  const HeapStart start{123456789, 4711, 0};
  Collected got;
  std::string error;
  ASSERT_TRUE(decode_heap_record(kStartRecord, &start, sizeof start, got, error)) << error;
  ASSERT_EQ(got.starts.size(), 1u);
  EXPECT_EQ(got.starts[0].time_ns, 123456789u);
  EXPECT_EQ(got.starts[0].pid, 4711u);
}

TEST(HeapRecords, MalformedRecordsAreRefusedWithAReason) {
  Collected got;
  std::string error;
  const HeapStart start{1, 2, 0};
  EXPECT_FALSE(decode_heap_record(kStartRecord, &start, sizeof start - 1, got, error));
  EXPECT_NE(error.find("start record of 15 bytes"), std::string::npos) << error;

  // A batch cut inside its last event.
  std::vector<uint8_t> payload = encode_batch({alloc(Allocator::kMalloc, 10, 0x1000, 100000, 1)}, 1);
  payload.pop_back();
  EXPECT_FALSE(decode_heap_record(kBatchRecord, payload.data(), static_cast<uint16_t>(payload.size()), got, error));
  EXPECT_NE(error.find("ends inside"), std::string::npos) << error;

  // A batch that claims more events than it holds.
  payload = encode_batch({alloc(Allocator::kMalloc, 10, 0x1000, 100, 1)}, 1);
  reinterpret_cast<HeapBatch*>(payload.data())->event_count = 2;
  EXPECT_FALSE(decode_heap_record(kBatchRecord, payload.data(), static_cast<uint16_t>(payload.size()), got, error));
  EXPECT_NE(error.find("ends inside event 1"), std::string::npos) << error;

  // An allocator number no version defines.
  payload = encode_batch({alloc(Allocator::kMalloc, 10, 0x1000, 100, 1)}, 1);
  payload[sizeof(HeapBatch)] = 0x0f;
  EXPECT_FALSE(decode_heap_record(kBatchRecord, payload.data(), static_cast<uint16_t>(payload.size()), got, error));
  EXPECT_NE(error.find("allocator 15"), std::string::npos) << error;

  // A header shorter than HeapBatch.
  EXPECT_FALSE(decode_heap_record(kBatchRecord, payload.data(), 8, got, error));
  EXPECT_NE(error.find("header alone needs 16"), std::string::npos) << error;

  // A kind from a newer minor version is skipped.
  EXPECT_TRUE(decode_heap_record(99, payload.data(), 8, got, error));
}

// ---- pairing ----

HeapOp allocation_op(uint64_t time, uint64_t address, uint64_t size, uint64_t stack, uint32_t thread = 1) {
  return {time, address, size, stack, thread, true, false, Allocator::kMalloc};
}
HeapOp free_op(uint64_t time, uint64_t address, uint32_t thread = 1) {
  return {time, address, 0, 0, thread, false, false, Allocator::kMalloc};
}

// Remembers every callback of replay().
struct Recorder {
  std::vector<size_t> allocated;
  std::vector<std::pair<size_t, size_t>> released;
  std::vector<size_t> unmatched;
};
struct RecordingVisitor {
  Recorder* r;
  void allocated(size_t i) { r->allocated.push_back(i); }
  void released(size_t a, size_t b) { r->released.emplace_back(a, b); }
  void unmatched(size_t i) { r->unmatched.push_back(i); }
};

// Decodes a realloc chain as the collector records it and replays it.
TEST(HeapPairing, ReallocChainFreesEachOldBlockAndLeaksTheLast) {
  const std::vector<HeapEvent> events = {
      reallocation(100, 100, 0, 0xa000, 101, 1),     // realloc(NULL, 101)
      reallocation(200, 210, 0xa000, 0xb000, 3001, 1),  // moved
      reallocation(300, 310, 0xb000, 0xb000, 57, 1),    // shrunk in place
      reallocation(400, 410, 0xb000, 0xc000, 70001, 1),
  };
  const std::vector<uint8_t> payload = encode_batch(events, 1);
  Collected got;
  std::string error;
  ASSERT_TRUE(decode_heap_record(kBatchRecord, payload.data(), static_cast<uint16_t>(payload.size()), got, error));
  HeapTimeline timeline;
  for (const HeapOp& op : got.ops) timeline.add(op);
  timeline.finish();
  Recorder r;
  const std::vector<size_t> live = timeline.replay(RecordingVisitor{&r});
  EXPECT_EQ(r.allocated.size(), 4u);
  EXPECT_EQ(r.released.size(), 3u);
  EXPECT_TRUE(r.unmatched.empty());
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(timeline.ops()[live[0]].address, 0xc000u);
  EXPECT_EQ(timeline.ops()[live[0]].size, 70001u);
}

TEST(HeapPairing, FreesOfUnknownPointersAndDoubleFreesChangeNothing) {
  HeapTimeline timeline;
  timeline.add(free_op(5, 0xdead0));              // allocated before collection
  timeline.add(allocation_op(10, 0x1000, 1001, 1));
  timeline.add(allocation_op(20, 0x2000, 2002, 2));
  timeline.add(free_op(30, 0x1000));
  timeline.add(free_op(40, 0x1000));              // double free
  timeline.add(free_op(50, 0x1008));              // inside a block, not its start
  timeline.finish();
  Recorder r;
  PeakFinder peak(timeline.ops());
  const std::vector<size_t> live = timeline.replay(peak);
  const std::vector<size_t> again = timeline.replay(RecordingVisitor{&r});
  EXPECT_EQ(live, again);
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(timeline.ops()[live[0]].address, 0x2000u);
  EXPECT_EQ(r.unmatched, (std::vector<size_t>{0, 4, 5}));
  EXPECT_EQ(peak.frees, 1u);
  EXPECT_EQ(peak.unmatched_frees, 3u);
  EXPECT_EQ(peak.in_use, 2002u);
  EXPECT_EQ(peak.live, 1u);
}

// Thread 2 frees an address and thread 1 gets it back from the allocator, but
// thread 1's records come first in the file: only time order pairs them right.
TEST(HeapPairing, RecordsOfThreadsArePairedInTimeOrder) {
  HeapTimeline timeline;
  timeline.add(allocation_op(300, 0x5000, 64, 11, 1));  // thread 1 reuses the address
  timeline.add(free_op(400, 0x5000, 1));
  timeline.add(allocation_op(100, 0x5000, 32, 22, 2));  // thread 2's block
  timeline.add(free_op(200, 0x5000, 2));
  timeline.finish();
  Recorder r;
  const std::vector<size_t> live = timeline.replay(RecordingVisitor{&r});
  EXPECT_TRUE(live.empty());
  EXPECT_TRUE(r.unmatched.empty());
  ASSERT_EQ(r.released.size(), 2u);
  for (const auto& [a, f] : r.released) {
    EXPECT_EQ(timeline.ops()[a].thread_id, timeline.ops()[f].thread_id);
    EXPECT_FALSE(timeline.ops()[f].allocation);
  }
}

// Equal stamps keep the order of the file (one thread's program order).
TEST(HeapPairing, EqualStampsKeepFileOrder) {
  HeapTimeline timeline;
  timeline.add(allocation_op(100, 0x5000, 8, 1));
  timeline.add(free_op(100, 0x5000));
  timeline.add(allocation_op(100, 0x5000, 16, 2));
  timeline.finish();
  const std::vector<size_t> live = timeline.replay(PairOnly{});
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(timeline.ops()[live[0]].size, 16u);
}

// An allocation at a live address means the old block went away unseen.
TEST(HeapPairing, AllocationAtALiveAddressReleasesTheOldBlock) {
  HeapTimeline timeline;
  timeline.add(allocation_op(10, 0x9000, 100, 1));
  timeline.add(allocation_op(20, 0x9000, 200, 2));
  timeline.finish();
  Recorder r;
  PeakFinder peak(timeline.ops());
  const std::vector<size_t> live = timeline.replay(peak);
  timeline.replay(RecordingVisitor{&r});
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(timeline.ops()[live[0]].size, 200u);
  EXPECT_EQ(r.released, (std::vector<std::pair<size_t, size_t>>{{0, 1}}));
  EXPECT_EQ(peak.frees, 0u);  // released by an allocation, not a free
  EXPECT_EQ(peak.in_use, 200u);
}

// A mapping and a heap block at the same address are different things.
TEST(HeapPairing, MappingsAndHeapBlocksArePairedSeparately) {
  HeapTimeline timeline;
  timeline.add({10, 0x7000, 4096, 1, 1, true, true, Allocator::kMmap});
  timeline.add(allocation_op(20, 0x7000, 48, 2));
  timeline.add({30, 0x7000, 0, 0, 1, false, true, Allocator::kMalloc});  // munmap
  timeline.finish();
  const std::vector<size_t> live = timeline.replay(PairOnly{});
  ASSERT_EQ(live.size(), 1u);
  EXPECT_FALSE(timeline.ops()[live[0]].mapping);
  EXPECT_EQ(timeline.ops()[live[0]].size, 48u);
}

// Bytes in use: 100, 300, 1300 (peak), 1200, 1700 (higher: the new peak),
// 700, 750. The peak is the first moment the highest value was reached.
TEST(HeapPairing, PeakIsTheHighestBytesInUseAndWhatHeldThem) {
  HeapTimeline timeline;
  timeline.add(allocation_op(10, 0x100, 100, 1));
  timeline.add(allocation_op(20, 0x200, 200, 2));
  timeline.add(allocation_op(30, 0x300, 1000, 3));
  timeline.add(free_op(40, 0x100));
  timeline.add(allocation_op(50, 0x400, 500, 4));
  timeline.add(free_op(60, 0x300));
  timeline.add(allocation_op(70, 0x500, 50, 5));
  timeline.add(free_op(80, 0x500));
  timeline.add(allocation_op(90, 0x600, 1000, 6));  // back to 1700, not higher: not a new peak
  timeline.finish();
  PeakFinder peak(timeline.ops());
  const std::vector<size_t> live = timeline.replay(peak);
  EXPECT_EQ(peak.peak_bytes, 1700u);
  EXPECT_EQ(peak.peak_live, 3u);
  EXPECT_EQ(peak.peak_time, 50u);
  EXPECT_EQ(peak.peak_end, 5u);
  EXPECT_EQ(peak.in_use, 1700u);
  EXPECT_EQ(live.size(), 3u);

  // What was live at the peak: the blocks of stacks 2, 3 and 4.
  std::vector<uint64_t> stacks;
  for (const size_t i : timeline.replay(PairOnly{}, peak.peak_end)) stacks.push_back(timeline.ops()[i].stack_id);
  EXPECT_EQ(stacks, (std::vector<uint64_t>{2, 3, 4}));
}

TEST(HeapPairing, NothingAllocatedHasNoPeak) {
  HeapTimeline timeline;
  timeline.add(free_op(1, 0x10));
  timeline.finish();
  PeakFinder peak(timeline.ops());
  EXPECT_TRUE(timeline.replay(peak).empty());
  EXPECT_EQ(peak.peak_bytes, 0u);
  EXPECT_EQ(peak.peak_end, 0u);
  EXPECT_EQ(peak.unmatched_frees, 1u);
}

// ---- the sweep: the same pairing, in time order, without the history ----

// What a replay says, as text: one line per call, in order.
struct Transcript {
  std::vector<std::string> lines;
  static std::string of(const HeapOp& op) {
    return std::to_string(op.time_ns) + "/" + std::to_string(op.address) + "/" + std::to_string(op.thread_id);
  }
  void allocated(const HeapOp& op) { lines.push_back("alloc " + of(op)); }
  void released(const HeapOp& a, const HeapOp& by) { lines.push_back("release " + of(a) + " by " + of(by)); }
  void unmatched(const HeapOp& op) { lines.push_back("unmatched " + of(op)); }
  void experiment_end(uint32_t e, const LiveSet& live) {
    std::vector<std::string> left;
    for (const auto& [key, op] : live) left.push_back(of(op));
    std::sort(left.begin(), left.end());
    lines.push_back("end " + std::to_string(e));
    lines.insert(lines.end(), left.begin(), left.end());
  }
};

// Threads churning a shared pool of addresses (a free on one thread, the
// address reused by another), their batches written in a shuffled order
// within a window, one thread's first batch written last (a thread that
// ends late), and equal stamps across threads: the sweep replays exactly
// what the whole sorted history replays, holding far fewer events.
TEST(HeapSweep, ReplaysExactlyWhatTheWholeHistoryReplays) {
  std::mt19937_64 random(17);
  constexpr int kThreads = 4, kBatches = 400, kPerBatch = 50;
  std::vector<std::vector<HeapOp>> batches;  // in file order
  std::vector<uint64_t> pool(64, 0);        // addresses: 0 free, else live
  uint64_t time = 1000;
  std::vector<HeapOp> straggler;            // thread 9's ops, written at the end
  for (int b = 0; b < kBatches; ++b) {
    std::vector<std::vector<HeapOp>> per_thread(kThreads);
    for (int i = 0; i < kPerBatch * kThreads; ++i) {
      const uint32_t thread = static_cast<uint32_t>(random() % kThreads);
      time += random() % 3;  // equal stamps happen
      const size_t slot = random() % pool.size();
      HeapOp op{time, 0x1000 + slot * 16, 0, 0, 100 + thread, false, false, Allocator::kMalloc};
      if (pool[slot] == 0) {
        op.allocation = true;
        op.size = 16 + random() % 256;
        op.stack_id = thread;
        pool[slot] = 1;
      } else {
        pool[slot] = 0;
      }
      per_thread[thread].push_back(op);
    }
    if (b % 50 == 0) straggler.push_back({time, 0x900000 + uint64_t(b), 8, 9, 9, true, false, Allocator::kMalloc});
    for (auto& ops : per_thread) batches.push_back(std::move(ops));
  }
  // Batches written up to 12 places away from their turn.
  for (size_t i = 0; i + 12 < batches.size(); i += 12) std::shuffle(batches.begin() + i, batches.begin() + i + 12, random);
  batches.push_back(straggler);

  HeapTimeline timeline;
  for (const auto& batch : batches)
    for (const HeapOp& op : batch) timeline.add(op);
  timeline.finish();
  Transcript whole;
  struct Indexed {
    const HeapTimeline* t;
    Transcript* out;
    void allocated(size_t i) { out->allocated(t->ops()[i]); }
    void released(size_t a, size_t by) { out->released(t->ops()[a], t->ops()[by]); }
    void unmatched(size_t i) { out->unmatched(t->ops()[i]); }
  };
  const std::vector<size_t> left = timeline.replay(Indexed{&timeline, &whole});
  LiveSet live;
  for (const size_t i : left) live.emplace(i, timeline.ops()[i]);
  whole.experiment_end(0, live);

  HeapSweep sweep(48);  // a batch that 48 batches read before it start after it is kept
  for (const auto& batch : batches)
    if (sweep.index_batch(0, batch)) sweep.keep(batch);
  sweep.plan();
  Transcript swept;
  for (const auto& batch : batches) {
    if (sweep.next_is_kept())
      sweep.skip(swept);
    else
      sweep.batch(batch, swept);
  }
  sweep.finish(swept);
  ASSERT_EQ(swept.lines.size(), whole.lines.size());
  for (size_t i = 0; i < whole.lines.size(); ++i) ASSERT_EQ(swept.lines[i], whole.lines[i]) << "line " << i;
  EXPECT_LT(sweep.most_pending(), timeline.size() / 10) << "the sweep held most of the history";

  // What is live at the end, from the latest event per address alone, in
  // file order: the same allocations, in the same (time) order.
  LatestByAddress latest;
  for (const auto& batch : batches)
    for (const HeapOp& op : batch) latest.add(op);
  const std::vector<HeapOp> at_end = latest.live_in_time_order();
  ASSERT_EQ(at_end.size(), left.size());
  for (size_t i = 0; i < left.size(); ++i)
    EXPECT_EQ(Transcript::of(at_end[i]), Transcript::of(timeline.ops()[left[i]])) << "leak " << i;
  EXPECT_EQ(latest.live().size(), left.size());

  // Read in parts (runs of batches, each with a table of its own) merged in
  // file order: the same allocations in the same order, however the file
  // is cut, equal stamps across parts included.
  for (const size_t per_part : {size_t{1}, size_t{7}, size_t{100}, batches.size()}) {
    SCOPED_TRACE("parts of " + std::to_string(per_part) + " batches");
    std::vector<LatestByAddress> parts;
    for (size_t b = 0; b < batches.size(); ++b) {
      if (b % per_part == 0) parts.emplace_back();
      for (const HeapOp& op : batches[b]) parts.back().add(op);
    }
    for (size_t p = 1; p < parts.size(); ++p) parts[0].merge(parts[p]);
    const std::vector<HeapOp> merged = parts[0].live_in_time_order();
    ASSERT_EQ(merged.size(), at_end.size());
    for (size_t i = 0; i < merged.size(); ++i)
      EXPECT_EQ(Transcript::of(merged[i]), Transcript::of(at_end[i])) << "leak " << i;
  }
}

// Any address a damaged file names is an address, the one whose key is the
// table's empty mark included; parts merge it like any other.
TEST(HeapLatest, EveryAddressIsKeptTheOneMarkingEmptySlotsToo) {
  HeapOp odd = allocation_op(10, 0x7fffffffffffffffull, 8, 1);
  odd.mapping = true;  // its key is all ones
  HeapOp unmapped = free_op(20, odd.address);
  unmapped.mapping = true;
  LatestByAddress first, second;
  first.add(odd);
  first.add(allocation_op(11, 0x100, 4, 2));
  EXPECT_EQ(first.live_in_time_order().size(), 2u);
  second.add(unmapped);
  first.merge(second);
  const std::vector<HeapOp> live = first.live_in_time_order();
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].address, 0x100u);
  EXPECT_FALSE(first.empty());
  first.clear();
  EXPECT_TRUE(first.empty());
}

// Two processes' records one after the other: each is paired on its own,
// although the second reuses the first one's addresses.
TEST(HeapSweep, ExperimentsArePairedApart) {
  HeapSweep sweep;
  const std::vector<HeapOp> first = {allocation_op(10, 0x100, 8, 1), allocation_op(20, 0x200, 8, 1)};
  const std::vector<HeapOp> second = {free_op(5, 0x100), allocation_op(6, 0x300, 4, 2)};
  sweep.index_batch(0, first);
  sweep.index_batch(1, second);
  sweep.plan();
  Transcript t;
  sweep.batch(first, t);
  sweep.batch(second, t);
  sweep.finish(t);
  EXPECT_EQ(t.lines, (std::vector<std::string>{"alloc 10/256/1", "alloc 20/512/1", "end 0", "10/256/1", "20/512/1",
                                               "unmatched 5/256/1", "alloc 6/768/1", "end 1", "6/768/1"}));
}

}  // namespace
}  // namespace lumen::heap
