// The compact form of gathered heap batches (kCompactRecord, heap_record.h),
// shared by the collector's compressor (which writes it) and the host (which
// reads it).
//
// The compressor receives batches in their plain encoding (a 2-byte size and
// a kBatchRecord payload each, as a kCompressedRecord's frame holds them) and
// rewrites them, before zstd, so that what repeats is spelled once:
//  * (size, stack) pairs: each allocation names an index into a table of
//    the record's distinct pairs; a pair is defined where it is first used;
//  * freed addresses: a free names "the k-th latest allocation of this
//    thread in this record" when the thread allocated that address there
//    (k = 0: the address follows explicitly);
//  * fields of one kind are stored together (one section per field), so
//    zstd sees runs of alike numbers instead of interleaved ones.
// Every event keeps its own stamp, exactly as recorded: the pairing rule
// (heap_record.h) orders frees and allocations of different threads by
// them. Reading a compact record yields, event for event and in the same
// order, what its plain batches yield.
//
// Layout (all numbers varints; Δ: zigzag difference from the previous
// value of the same field): kCompactSections section lengths, then the
// sections in this order:
//   batches    per batch: thread id, event count, Δ base time (from the
//              previous batch's base; the first from 0)
//   tags       per event: the tag byte (heap_record.h)
//   times      per event: as in a plain batch (Δ time; realloc: Δ free
//              time and the time after the free)
//   pair_refs  per allocation: index in the pair table; the table's size
//              means "the next definition"
//   pair_defs  per new pair: size, stack id + 1
//   free_refs  per freed address: k >= 1, or 0 when explicit
//   addresses  per allocated or explicit freed address: Δ address (from the
//              last address any event of the batch named; 0 at a batch's
//              start)
#pragma once

#include <cstddef>
#include <cstdint>

#include "heap_record.h"

namespace lumen::heap {

enum CompactSection { kSecBatches, kSecTags, kSecTimes, kSecPairRefs, kSecPairDefs, kSecFreeRefs, kSecAddresses };
inline constexpr int kCompactSections = 7;

// What one record's compact form may take (it can exceed the plain form by
// a byte per explicit free and the section lengths).
inline constexpr size_t kMaxCompactBytes = 2 * kMaxGatheredBytes;

// The encoder's working memory, supplied by the caller (the collector maps
// it once: no allocation while encoding). Sizes are counts of entries, a
// power of two each; the tables start zeroed. The pair and thread tables
// are open-addressed and left zeroed again; the address table is a cache
// (an entry per hash, the latest allocation there wins) whose entries are
// valid for the record whose generation they carry, so that it stays small
// enough for the processor's cache and is never cleared but when the
// generation wraps. A full table or a lost entry only costs compactness.
struct CompactScratch {
  static constexpr uint32_t kOrdinalBits = 20;  // allocations of a thread in a record, at most, referred to
  struct AddressSlot {
    uint64_t address;
    uint32_t thread_id;
    uint32_t tag;  // generation << kOrdinalBits | ordinal; generation 0: empty
  };
  struct PairSlot {
    uint64_t size;
    uint64_t stack_plus_one;
    uint32_t index_plus_one;  // 0: empty
    uint32_t reserved;
  };
  struct ThreadSlot {
    uint32_t thread_id;
    uint32_t allocations;
    uint32_t used;  // 0: empty
    uint32_t reserved;
  };
  AddressSlot* addresses;
  size_t address_slots;
  PairSlot* pairs;
  size_t pair_slots;
  ThreadSlot* threads;
  size_t thread_slots;
  uint32_t* touched;  // slot numbers to clear afterwards: pair_slots + thread_slots of room
  uint32_t generation;  // of the last record encoded
  uint8_t* sections[kCompactSections];  // each of kMaxCompactBytes
};

// Empties the tables (for a forked child whose parent's compressor may have
// been in the middle of a record).
void compact_scratch_reset(CompactScratch& scratch) noexcept;

// [no allocation, no lock] Rewrites `batch_count` gathered plain batches
// (`bytes` at `gathered`) into `out` (kMaxCompactBytes of room). Returns the
// bytes written, or 0 when the input is not well-formed plain batches.
size_t compact_batches(const uint8_t* gathered, size_t bytes, uint32_t batch_count, uint8_t* out,
                       CompactScratch& scratch) noexcept;

}  // namespace lumen::heap
