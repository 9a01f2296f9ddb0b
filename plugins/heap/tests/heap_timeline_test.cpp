// The heap plugin's host side on its own: batches encoded as the collector
// encodes them (heap_paired.h) are decoded back field by field, and the
// pairing of frees with allocations is fed operations directly (realloc
// chains, frees of unknown pointers, double frees, records of threads out
// of time order, the peak).
#include <gtest/gtest.h>
#include <lumen/record_format.h>
#include <zstd.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "analysis/heap_latest.h"
#include "analysis/heap_sweep.h"
#include "heap_paired.h"
#include "analysis/heap_timeline.h"

namespace lumen::heap {
namespace {

struct Collected final : HeapRecordReader {
  std::vector<HeapStart> starts;
  std::vector<HeapOp> ops;
  void start(const HeapStart& s) override { starts.push_back(s); }
  void op(const HeapOp& o) override { ops.push_back(o); }
};

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
  void realloc_new(uint64_t size, uint64_t stack) {  // realloc(NULL, size)
    tag(EventType::kRealloc, Allocator::kRealloc);
    number(size);
    number(stack + 1);
  }
  void mark(uint64_t advance) {
    tag(EventType::kMark);
    number(advance);
  }
  void highest(uint64_t bytes, bool raised) {
    tag(EventType::kHighest);
    number(bytes << 1 | (raised ? 1 : 0));
  }
  std::vector<uint8_t> payload() const {
    std::vector<uint8_t> out(sizeof header);
    std::memcpy(out.data(), &header, sizeof header);
    out.insert(out.end(), events.begin(), events.end());
    return out;
  }
};

// What a plain batch's record yields.
Collected decoded(const PairedBatch& batch) {
  const std::vector<uint8_t> payload = batch.payload();
  Collected got;
  std::string error;
  EXPECT_TRUE(decode_heap_record(kPairedBatchRecord, payload.data(), static_cast<uint16_t>(payload.size()), got, error))
      << error;
  return got;
}

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
  const Collected got = decoded(batch);
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

// Every allocator and event type the collector writes, realloc(NULL, n)
// and the kHighest that precedes an event included: each op as written.
TEST(HeapPairedRecords, EveryEventTypeAndAllocatorSurvivesEncodingAndDecoding) {
  const Allocator heap_allocators[] = {Allocator::kMalloc,       Allocator::kCalloc,       Allocator::kMemalign,
                                       Allocator::kPosixMemalign, Allocator::kAlignedAlloc, Allocator::kValloc,
                                       Allocator::kPvalloc};
  PairedBatch batch{{1'000'000, 4242, 0, 0}, {}};
  for (size_t i = 0; i < std::size(heap_allocators); ++i)
    batch.alloc(1 + i * 1'999'993, i, heap_allocators[i]);  // ordinals 0 to 6
  batch.highest(123'456'789, true);
  batch.realloc_new(3, 8);                                   // 7
  batch.mark(1);
  batch.alloc(100'001, LUMEN_NO_STACK, Allocator::kMmap);   // 8
  batch.alloc(200'002, 9, Allocator::kMremap);              // 9
  batch.highest(200'000'000, false);
  batch.free_own(2, EventType::kUnmap);                     // 8
  const Collected got = decoded(batch);
  std::vector<HeapOp> expected;
  for (size_t i = 0; i < std::size(heap_allocators); ++i)
    expected.push_back({1'000'000, identity_key(4242, i), 1 + i * 1'999'993, i, 4242, true, false, heap_allocators[i]});
  expected.push_back({1'000'000, identity_key(4242, 7), 3, 8, 4242, true, false, Allocator::kRealloc});
  expected.push_back({1'000'001, identity_key(4242, 8), 100'001, LUMEN_NO_STACK, 4242, true, true, Allocator::kMmap});
  expected.push_back({1'000'001, identity_key(4242, 9), 200'002, 9, 4242, true, true, Allocator::kMremap});
  expected.push_back({1'000'001, identity_key(4242, 8), 0, 0, 4242, false, true, Allocator::kMalloc});
  ASSERT_EQ(got.ops.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(same_op(got.ops[i], expected[i])) << "op " << i;
    // Only the ops a kHighest preceded carry one.
    EXPECT_EQ(got.ops[i].highest, i == 7 ? 123'456'789u : i == 10 ? 200'000'000u : 0u) << "op " << i;
    EXPECT_EQ(got.ops[i].raised_highest, i == 7) << "op " << i;
  }
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
  PairedBatch unknown_allocator{{1, 3, 0, 0}, {}};
  unknown_allocator.alloc(8, 1, static_cast<Allocator>(kAllocatorCount + 5));
  refused(kPairedBatchRecord, unknown_allocator.payload(), "names allocator 15");
  PairedBatch marked_after_highest{{1, 3, 0, 0}, {}};
  marked_after_highest.highest(100, true);
  marked_after_highest.mark(1);
  refused(kPairedBatchRecord, marked_after_highest.payload(), "a mark after a highest value");
  PairedBatch highest_last{{1, 3, 0, 0}, {}};
  highest_last.alloc(8, 1);
  highest_last.highest(100, true);
  refused(kPairedBatchRecord, highest_last.payload(), "ends after a highest value");
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
  const HeapStart start{1, 2, 0};
  const std::vector<uint8_t> short_start(reinterpret_cast<const uint8_t*>(&start),
                                         reinterpret_cast<const uint8_t*>(&start) + sizeof start - 1);
  expect_refused(kStartRecord, short_start, "start record of 15 bytes");
}

// A kind no collector writes is refused by its number, as any kind the
// reader does not know.
TEST(HeapRecords, KindsNoCollectorWritesAreRefused) {
  PairedBatch batch{{1, 3, 0, 0}, {}};
  batch.alloc(8, 1);
  for (const uint16_t kind : {0, 2, 3, 4, 7, 99})
    expect_refused(kind, batch.payload(),
                   "heap record of kind " + std::to_string(kind) + " is not one this lumen reads");
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
  PairedBatch batch{{100, 1, 0, 0}, {}};
  batch.realloc_new(101, 1);           // realloc(NULL, 101): ordinal 0
  batch.mark(110);
  batch.realloc_own(1, 3001, 1);       // moved: frees 0, allocates 1
  batch.mark(100);
  batch.realloc_own(1, 57, 1);         // shrunk in place: a new identity all the same
  batch.mark(100);
  batch.realloc_own(1, 70001, 1);
  const Collected got = decoded(batch);
  HeapTimeline timeline;
  for (const HeapOp& op : got.ops) timeline.add(op);
  timeline.finish();
  Recorder r;
  const std::vector<size_t> live = timeline.replay(RecordingVisitor{&r});
  EXPECT_EQ(r.allocated.size(), 4u);
  EXPECT_EQ(r.released.size(), 3u);
  EXPECT_TRUE(r.unmatched.empty());
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(timeline.ops()[live[0]].address, identity_key(1, 3));
  EXPECT_EQ(timeline.ops()[live[0]].size, 70001u);
  EXPECT_EQ(timeline.ops()[live[0]].time_ns, 410u);
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
