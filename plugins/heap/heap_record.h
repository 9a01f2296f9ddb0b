// The heap plugin's records, declared once for its two halves.
//
// Heap events are many and small, and what they cost the target is mostly
// the bytes written, so each thread gathers its events in a batch of up to
// kBatchBytes, encoded compactly (times and addresses as differences from the
// previous event, numbers as varints: 5 to 10 bytes an event), and writes
// the batch as one record. Each batch is valid on its own (it starts from
// absolute values). A thread's batch is written when full, when the thread
// ends and when collection stops; a process killed outright loses at most
// the last unwritten batch of each thread.
//
// Since the paired form (heap_paired.h, kPairedBatchRecord and
// kPairedCompactRecord, what the collector writes now), frees are paired
// with allocations in the process, as they happen (collector/live_table.h):
// an allocation is the (thread id, ordinal) of its thread's allocations, a
// free names the identity it released or, for an address the collector
// never saw allocated, the address; and an event's time is its thread's
// latest time mark, written at most kMarkGranularityNs (1 ms) apart, at
// each batch's start (strictly later than the thread's previous mark),
// after a load-object map change, and before a free of another thread's
// allocation (later than that allocation's mark). The host reads an
// identity as an address of its own (identity_key, above every user-space
// address), so the pairing rule below applies unchanged: each identity is
// allocated once and freed at most once, later by the marks' order (a
// thread's events in its order; a cross-thread free marked later than the
// allocation), and the rule pairs it exactly; a free of an identity is the
// latest event at it whatever the marks (heap_latest.h). Times, and all
// that is selected or resolved by time, are at mark precision: an event's
// time is at most kMarkGranularityNs (plus a scheduler tick when the
// thread's clock reading is coarse) before the event. The peak alone is
// exact: a process-wide {bytes in use, highest} word changed by each event
// with one 16-byte compare-and-swap orders events at the peak, told by
// kHighest pseudo-events when the highest value a thread saw rose
// (heap_paired.h).
//
// Experiments of earlier versions hold the forms below, read as before.
//
// Time order: an allocation is stamped after the real call returned, a
// deallocation before the real call runs. So when one thread frees an address
// and another thread gets it back from the allocator, the free's stamp is
// earlier than the new allocation's, and the host can pair frees with
// allocations by address in time order although threads' records interleave
// in the file. A realloc carries both stamps for the same reason.
//
// The stamps came from an ordered clock: each is
// max(a CLOCK_MONOTONIC or _COARSE reading, the process's previous stamp +
// 1), taken with one compare-and-swap on a process-wide word, so a
// process's stamps strictly increase across all its threads in an order
// that agrees with what happened before what (a free is stamped before the
// allocation that got its address back, whichever thread made it), and no
// two events share one. A stamp is never later than when it was taken and
// lags that by microseconds while a thread allocates continuously, by at
// most a scheduler tick otherwise; never earlier than the latest
// load-object map change the runtime recorded.
//
// The pairing rule the host applies (exact, whatever the file order): sort
// every event of a process by its stamp, keeping file order among equal
// stamps (which only experiments of earlier versions, stamped by clock
// readings alone, may hold), and replay: an allocation makes its address
// live (heap and mappings apart), a free releases the live allocation at
// its address. One thread's stamps strictly increase from event to event,
// so its batches may reach the file in any order (compressed ones later
// than a plain one written meanwhile) without changing what pairs with
// what. Stamps stay
// per event, not per batch: the order within each thread's batch does not
// tell whether a block allocated on one thread was freed on another before
// or after that other thread's next allocation at the address, when both
// threads' batches span the same time; the stamps do.
//
// What is live at the end is, by this rule, the allocations that are the
// latest event (stamp, then file order) at their address: a reader that
// needs only that keeps the latest event per address, in one pass.
//
// Compression: full batches go to a thread of the collector's own
// (collector/batch_compressor.h), which writes several of them as one
// kCompressedRecord: a HeapCompressed header, then one zstd frame that
// decompresses to `raw_bytes` bytes holding `batch_count` times a 2-byte
// payload size and a kBatchRecord payload. A batch the compressor cannot
// take at once is written as a kBatchRecord, as are the batches of
// experiments written before compression existed.
//
// The compressor wrote kCompactRecord: the same header, then one zstd
// frame of the same batches rewritten so that what repeats is spelled once
// ((size, stack) pairs as indices into a table the record defines, a free
// as a reference to its thread's allocation of that address, each field in
// a section of its own: heap_compact.h). Every event keeps its own exact
// stamp, so the pairing rule above is unchanged. Readers read all the
// batch kinds; kCompressedRecord is what experiments of the first
// compressing version hold. The paired form's records are compressed the
// same way: kPairedCompactRecord (HeapCompressed, then a zstd frame of the
// paired batches in sections); a batch the compressor cannot take is a
// kPairedBatchRecord.
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
  kStartRecord = 1,  // HeapStart: first record of each process's file
  kBatchRecord = 2,  // HeapBatch, then `event_count` encoded events
  kCompressedRecord = 3,  // HeapCompressed, then a zstd frame of batches
  kCompactRecord = 4,     // HeapCompressed, then a zstd frame of compacted batches (heap_compact.h)
  kPairedBatchRecord = 5,    // HeapPairedBatch, then `event_count` paired events (heap_paired.h)
  kPairedCompactRecord = 6,  // HeapCompressed, then a zstd frame of paired batches in sections (heap_paired.h)
};

// Marks the start of a process's collection in its file. A forked child
// writes one too, so a view reading several experiments tells them apart,
// and times are shown relative to it.
struct HeapStart {
  uint64_t time_ns;
  uint32_t pid;
  uint32_t reserved;
};

struct HeapBatch {
  uint64_t base_time_ns;  // the first event's time differs from this
  uint32_t thread_id;
  uint32_t event_count;
};

struct HeapCompressed {
  uint32_t raw_bytes;    // what the frame decompresses to, at most kMaxGatheredBytes (compact: kMaxCompactBytes)
  uint32_t batch_count;  // batches in it, each a uint16_t size and a kBatchRecord payload
};

inline constexpr size_t kBatchBytes = 4096;   // a batch record's payload (HeapBatch and events), at most
inline constexpr size_t kMaxEventBytes = 64;  // one encoded event, at most (1 + 6 varints of <= 10)
inline constexpr size_t kMaxGatheredBytes = 1024 * 1024;  // a compressed record's batches, at most

// ---- event encoding ----
//
// Each event starts with a tag byte: the allocator in bits 0-3, the type in
// bits 4-6, and for a reallocation bit 7 when it freed an old address. Then,
// with Δ a zigzag varint difference from the previous event's value (time,
// or address: the last address any event of the batch named) and U a
// varint:
//   kAlloc    Δtime Δaddress Usize Ustack        (Ustack: stack id + 1; 0: none)
//   kFree     Δtime Δaddress                      (free)
//   kUnmap    Δtime Δaddress                      (munmap)
//   kRealloc  Δfree_time Utime_after_free [Δold_address] Δaddress Usize Ustack
enum class EventType : uint8_t {
  kAlloc = 0,
  kFree = 1,
  kUnmap = 2,
  kRealloc = 3,
  kMark = 4,     // paired form only
  kHighest = 5,  // paired form only: the highest bytes in use the thread's next event saw (heap_paired.h)
};
inline constexpr uint8_t kTagFreedOld = 0x80;

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

// One event as the collector sees it, before encoding.
struct HeapEvent {
  EventType type;
  Allocator allocator;
  uint64_t time_ns;       // after the real call (allocations), before it (frees)
  uint64_t free_time_ns;  // reallocations: before the real call
  uint64_t old_address;   // reallocations: 0 when nothing was freed
  uint64_t address;
  uint64_t size;
  uint64_t stack_id;
};

// Appends `e` (at most kMaxEventBytes) at `out`; `previous_time` and
// `previous_address` start a batch as its base time and 0.
inline uint8_t* encode_heap_event(uint8_t* out, const HeapEvent& e, uint64_t& previous_time,
                                  uint64_t& previous_address) {
  uint8_t tag = static_cast<uint8_t>((static_cast<uint8_t>(e.type) << 4) | static_cast<uint8_t>(e.allocator));
  if (e.type == EventType::kRealloc && e.old_address != 0) tag |= kTagFreedOld;
  *out++ = tag;
  switch (e.type) {
    case EventType::kAlloc:
      out = put_delta(out, e.time_ns, previous_time);
      out = put_delta(out, e.address, previous_address);
      out = put_varint(out, e.size);
      out = put_varint(out, e.stack_id + 1);
      break;
    case EventType::kFree:
    case EventType::kUnmap:
      out = put_delta(out, e.time_ns, previous_time);
      out = put_delta(out, e.address, previous_address);
      break;
    case EventType::kRealloc:
      out = put_delta(out, e.free_time_ns, previous_time);
      out = put_varint(out, e.time_ns - e.free_time_ns);
      if (e.old_address != 0) {
        out = put_delta(out, e.old_address, previous_address);
        previous_address = e.old_address;
      }
      out = put_delta(out, e.address, previous_address);
      out = put_varint(out, e.size);
      out = put_varint(out, e.stack_id + 1);
      break;
    case EventType::kMark:  // not in this encoding
    case EventType::kHighest:
      break;
  }
  previous_time = e.time_ns;
  previous_address = e.address;
  return out;
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
static_assert(sizeof(HeapBatch) == 16, "record layout");
static_assert(sizeof(HeapCompressed) == 8, "record layout");
static_assert(kBatchBytes < 65536, "a batch fits a record and a block");

}  // namespace lumen::heap
