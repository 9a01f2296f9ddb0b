// The heap plugin's records, declared once for its two halves.
//
// Heap events are many and small, and what they cost the target is mostly
// the bytes written, so each thread gathers its events in a batch and
// writes the batch as one record (the encoding is in heap_paired.h):
//  * kStartRecord, first in each process's file;
//  * kPairedBatchRecord, one thread's batch;
//  * kPairedCompactRecord, several batches rewritten in sections and
//    compressed by a thread of the collector's own
//    (collector/batch_compressor.h); a batch it cannot take is written as
//    a kPairedBatchRecord.
// Each record is valid on its own: a process killed outright loses at most
// each thread's unwritten batch.
//
// Frees are paired with allocations in the process, as they happen
// (collector/live_table.h): an allocation is an identity, (thread id,
// ordinal among the thread's allocations), and a free names the identity
// it released or, for an address the collector never saw allocated, the
// address. An event's time is its thread's latest time mark: at most
// kMarkGranularityNs (plus a scheduler tick when the thread's clock is
// coarse) before the event.
//
// The pairing rule the host applies: an identity is an address of its own
// (identity_key, above every user-space address); a process's events are
// sorted by time (file order among equal times) and replayed: an
// allocation makes its address live, a free releases the live allocation
// at its address. Each identity is allocated once and freed at most once,
// so the rule pairs exactly, and a free of an identity is the latest event
// at it whatever the marks (heap_latest.h). What is live at the end is the
// allocations that are the latest event at their address.
//
// The peak alone is exact: one process-wide {bytes in use, highest} word,
// changed by each event with one compare-and-swap, orders the events at
// the peak, told by kHighest pseudo-events (heap_paired.h).
#pragma once

#include <cstddef>
#include <cstdint>

namespace lumen::heap {

inline constexpr const char* kDataFile = "heaptrace";

// Which function allocated. Heap blocks (everything but mmap/mremap) and
// mappings are paired in separate address spaces.
enum class Allocator : uint8_t {
  kMalloc = 0,
  kCalloc = 1,
  kRealloc = 2,
  kMemalign = 3,
  kPosixMemalign = 4,
  kAlignedAlloc = 5,
  kValloc = 6,
  kPvalloc = 7,
  kMmap = 8,
  kMremap = 9,
};
inline constexpr int kAllocatorCount = 10;

inline constexpr const char* kAllocatorNames[kAllocatorCount] = {
    "malloc", "calloc", "realloc", "memalign", "posix_memalign", "aligned_alloc", "valloc", "pvalloc", "mmap", "mremap",
};

inline constexpr bool is_mapping(Allocator a) { return a == Allocator::kMmap || a == Allocator::kMremap; }

// Record kinds.
enum : uint16_t {
  kStartRecord = 1,          // HeapStart
  kPairedBatchRecord = 5,    // HeapPairedBatch, then `event_count` events (heap_paired.h)
  kPairedCompactRecord = 6,  // HeapCompressed, then a zstd frame of batches in sections (heap_paired.h)
};

// Marks the start of a process's collection in its file. A forked child
// writes one too, so a view reading several experiments tells them apart,
// and times are shown relative to it.
struct HeapStart {
  uint64_t time_ns;
  uint32_t pid;
  uint32_t reserved;
};

struct HeapCompressed {
  uint32_t raw_bytes;    // what the frame decompresses to, at most kMaxCompactBytes
  uint32_t batch_count;  // batches in it
};

// What one event adds to a batch, at most: its tag and up to four varints,
// with the mark and the kHighest that may precede it (heap_paired.h).
inline constexpr size_t kMaxEventBytes = 64;

// What an event is: the type in bits 4-6 of its tag byte (heap_paired.h).
enum class EventType : uint8_t {
  kAlloc = 0,
  kFree = 1,
  kUnmap = 2,
  kRealloc = 3,
  kMark = 4,     // a time mark: the events after it have its time
  kHighest = 5,  // the highest bytes in use the thread's next event saw
};
inline constexpr uint8_t kTagFreedOld = 0x80;  // a kRealloc's tag: it freed an old block

inline uint8_t* put_varint(uint8_t* out, uint64_t value) {
  while (value >= 0x80) {
    *out++ = static_cast<uint8_t>(value | 0x80);
    value >>= 7;
  }
  *out++ = static_cast<uint8_t>(value);
  return out;
}
inline uint8_t* put_delta(uint8_t* out, uint64_t value, uint64_t previous) {
  const auto d = static_cast<int64_t>(value - previous);
  return put_varint(out, (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63));
}

// Readers return nullptr when the input ends inside the number.
inline const uint8_t* get_varint(const uint8_t* in, const uint8_t* end, uint64_t& value) {
  value = 0;
  for (int shift = 0; in < end && shift < 64; shift += 7) {
    const uint8_t byte = *in++;
    value |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return in;
  }
  return nullptr;
}
inline const uint8_t* get_delta(const uint8_t* in, const uint8_t* end, uint64_t previous, uint64_t& value) {
  uint64_t zigzag;
  in = get_varint(in, end, zigzag);
  value = previous + ((zigzag >> 1) ^ (~(zigzag & 1) + 1));
  return in;
}

// A batch of paired events (heap_paired.h): the thread's time mark and
// allocation ordinal where the batch begins.
struct HeapPairedBatch {
  uint64_t base_time_ns;  // the first time mark: the events' time until a kMark changes it
  uint32_t thread_id;
  uint32_t event_count;
  uint64_t base_ordinal;  // of the batch's first allocation among the thread's allocations
};

static_assert(sizeof(HeapPairedBatch) == 24, "record layout");
static_assert(sizeof(HeapStart) == 16, "record layout");
static_assert(sizeof(HeapCompressed) == 8, "record layout");

}  // namespace lumen::heap
