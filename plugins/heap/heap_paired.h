// The encoding of heap events (kPairedBatchRecord, kPairedCompactRecord:
// heap_record.h), shared by the collector, which writes it, and the host.
//
// The collector pairs frees with allocations as they happen (its live
// table, collector/live_table.h), so an event names no address and carries
// no time of its own:
//  * an allocation is its thread's next one: its identity is (thread id,
//    ordinal), the ordinal counting the thread's allocations from 0 (a
//    batch's header says where its first one is in that count);
//  * a free names the allocation it released: "the k-th latest allocation
//    of this thread" (k >= 1), or another thread's (thread id, ordinal),
//    or, for an address the collector did not see allocated (the
//    parent's in a forked child, a foreign pointer, a double free), the
//    address itself;
//  * time is a mark: an event has the time of its thread's latest mark
//    (the batch's base time, then each kMark). Marks are written at most
//    kMarkGranularityNs apart while a thread has events, strictly increase
//    along a thread (each batch starts with one), and a free of another
//    thread's allocation is marked later than that allocation.
//  * the peak: every event changes one process-wide word {bytes in use,
//    highest bytes in use} with one compare-and-swap
//    (collector/bytes_in_use.h). When the highest value an event saw there
//    is above what its thread's previous event saw, a kHighest before the
//    event says it (and whether the event itself raised it): the highest
//    value P of the process, and for each thread which of its events came
//    before the event that reached P (those that saw less than P) and which
//    after, whatever the marks (docs/architecture.md). Nothing is written
//    while the highest value stays.
//
// Plain encoding (kPairedBatchRecord: HeapPairedBatch, then the events),
// U a varint:
//   tag byte  the allocator in bits 0-3 (for kFree and kMark: 0), the type
//             in bits 4-6, for kRealloc bit 7 when it freed an old block
//   kAlloc    Usize Ustack              (Ustack: stack id + 1; 0: none)
//   kFree     Uref [Uextra]             (free)
//   kUnmap    Uref [Uextra]             (munmap)
//   kRealloc  [Uref [Uextra]] Usize Ustack
//   kMark     Uadvance                  (ns after the previous mark; > 0)
//   kHighest  Uhighest << 1 | set       (before the thread's next event)
// A reference `ref`: ref & 3 == 0: this thread's k-th latest allocation,
// k = ref >> 2; 1: thread ref >> 2's allocation whose ordinal is `extra`;
// 2: the address `extra`, not seen allocated.
//
// Compact encoding (kPairedCompactRecord: HeapCompressed, then one zstd
// frame): kPairedSections section lengths, then the sections, each holding
// one kind of field of all the record's batches in order:
//   batches  per batch: thread id, event count, Δ base time and Δ base
//            ordinal (from what ThreadGuess expects of the thread: where
//            its previous batch in the record left off; a batch starts at
//            its thread's latest mark + 1 ns unless a mark is due)
//   tags     per event: the tag byte
//   times    per mark: Uadvance; per kHighest: its value
//   pairs    per allocation: Usize Ustack
//   refs     per free: Uref
//   extras   per reference to another thread or to an address: Uextra
// (Δ: zigzag varint difference.) The program's repeating patterns then
// become long runs zstd spells once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "heap_record.h"

namespace lumen::heap {

// At most this long between two marks of a thread that has events: the
// precision of heap event times (time filters, the timeline, the peak's time).
inline constexpr uint64_t kMarkGranularityNs = 1'000'000;

// A thread's paired batch, at most (HeapPairedBatch and events): larger
// than a plain batch, so that a record holds fewer batch starts, each of
// which interrupts the repeating runs of every section.
inline constexpr size_t kPairedBatchBytes = 16384;
static_assert(kPairedBatchBytes < 65536, "a batch fits a record and a block");

enum class RefKind : uint8_t { kOwn = 0, kOther = 1, kAddress = 2 };
inline constexpr uint64_t kMaxIdentityThread = 1ull << 22;
inline constexpr uint64_t kMaxOrdinal = 1ull << 40;
// Where the host pairs identities: above every user-space address.
inline constexpr uint64_t kIdentityBit = 1ull << 62;
inline uint64_t identity_key(uint32_t thread_id, uint64_t ordinal) {
  return kIdentityBit | (uint64_t{thread_id} << 40) | ordinal;
}

// A compact record's sections, all of them, at most (also what the
// collector gathers for one record).
inline constexpr size_t kMaxCompactBytes = 2 * 1024 * 1024;

enum PairedSection { kPSecBatches, kPSecTags, kPSecTimes, kPSecPairs, kPSecRefs, kPSecExtras };
inline constexpr int kPairedSections = 6;

// What a compact record's batches section predicts for a thread's next
// batch's base ordinal and base time: where its previous batch in the
// record left off (its last ordinal + 1, its last mark + 1).
// The writer and the reader keep it alike, so it is deterministic: up to
// kThreads threads, then the oldest entry makes room.
struct ThreadGuess {
  static constexpr int kThreads = 64;
  uint32_t thread[kThreads];
  uint64_t next[kThreads];
  uint64_t time[kThreads];
  int used = 0;
  int oldest = 0;
  // The thread's expected ordinal and time; unknown: 0 and `fallback_time`.
  void expect(uint32_t id, uint64_t fallback_time, uint64_t& ordinal, uint64_t& at_time) const {
    ordinal = 0;
    at_time = fallback_time;
    for (int i = 0; i < used; ++i)
      if (thread[i] == id) {
        ordinal = next[i];
        at_time = time[i];
      }
  }
  void set(uint32_t id, uint64_t ordinal, uint64_t at_time) {
    for (int i = 0; i < used; ++i)
      if (thread[i] == id) {
        next[i] = ordinal;
        time[i] = at_time;
        return;
      }
    int at = used < kThreads ? used++ : oldest;
    if (at == oldest && used == kThreads) oldest = (oldest + 1) % kThreads;
    thread[at] = id;
    next[at] = ordinal;
    time[at] = at_time;
  }
};

// One field stream read with bounds: what both encodings are read through.
struct VarintStream {
  const uint8_t* at = nullptr;
  const uint8_t* end = nullptr;
  bool failed = false;
  bool varint(uint64_t& value) {
    const uint8_t* next = failed ? nullptr : get_varint(at, end, value);
    if (next == nullptr) return !(failed = true);
    at = next;
    return true;
  }
  bool byte(uint8_t& value) {
    if (failed || at >= end) return !(failed = true);
    value = *at++;
    return true;
  }
  bool delta(uint64_t previous, uint64_t& value) {
    const uint8_t* next = failed ? nullptr : get_delta(at, end, previous, value);
    if (next == nullptr) return !(failed = true);
    at = next;
    return true;
  }
};

// A plain batch's events, one stream; a compact record's, one per section.
struct PlainSource {
  VarintStream s;
  bool tag(uint8_t& t) { return s.byte(t); }
  bool value(int /*section*/, uint64_t& v) { return s.varint(v); }
};
struct SectionSource {
  VarintStream* sections;  // kPairedSections
  bool tag(uint8_t& t) { return sections[kPSecTags].byte(t); }
  bool value(int section, uint64_t& v) { return sections[section].varint(v); }
};

// Reads one event's fields from `in` and hands each to `out` (tag(), then
// value(section, v)) in the order the plain encoding has them. Returns
// the event's type, or -1 when the input ends or does not fit.
template <typename Source, typename Sink>
int walk_paired_event(Source& in, Sink& out) {
  uint8_t tag = 0;
  if (!in.tag(tag)) return -1;
  out.tag(tag);
  uint64_t v = 0;
  const auto field = [&](int section) {
    if (!in.value(section, v)) return false;
    out.value(section, v);
    return true;
  };
  const auto ref = [&]() { return field(kPSecRefs) && ((v & 3) == 0 || field(kPSecExtras)); };
  const auto pair = [&]() { return field(kPSecPairs) && field(kPSecPairs); };
  const auto type = static_cast<EventType>((tag >> 4) & 0x7);
  switch (type) {
    case EventType::kMark:
    case EventType::kHighest:
      return field(kPSecTimes) ? static_cast<int>(type) : -1;
    case EventType::kAlloc:
      return pair() ? static_cast<int>(type) : -1;
    case EventType::kFree:
    case EventType::kUnmap:
      return ref() ? static_cast<int>(type) : -1;
    case EventType::kRealloc:
      return ((tag & kTagFreedOld) == 0 || ref()) && pair() ? static_cast<int>(type) : -1;
  }
  return -1;
}

// [no allocation, no lock] Rewrites `batch_count` gathered plain paired
// batches (each a uint16_t size and a kPairedBatchRecord payload; `bytes`
// at `gathered`) into the compact encoding at `out` (kMaxCompactBytes of
// room), using `sections` (kPairedSections buffers of kMaxCompactBytes).
// Returns the bytes written, or 0 when the input is not well formed.
size_t compact_paired_batches(const uint8_t* gathered, size_t bytes, uint32_t batch_count, uint8_t* out,
                              uint8_t* const* sections) noexcept;

}  // namespace lumen::heap
