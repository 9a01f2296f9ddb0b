#include "heap_paired.h"

namespace lumen::heap {

namespace {

// Each field to the end of its section, bounded by kMaxCompactBytes.
struct SectionSink {
  uint8_t* begin[kPairedSections];
  uint8_t* at[kPairedSections];
  bool full = false;
  uint32_t allocations = 0;  // of the batch being walked
  uint64_t advance = 0;      // its marks' advances, summed
  bool marking = false;      // the event walked is a kMark
  bool room(int section) {
    if (static_cast<size_t>(at[section] - begin[section]) + 10 > kMaxCompactBytes) full = true;
    return !full;
  }
  void tag(uint8_t t) {
    if (!room(kPSecTags)) return;
    *at[kPSecTags]++ = t;
    const auto type = static_cast<EventType>((t >> 4) & 0x7);
    marking = type == EventType::kMark;  // a kHighest's value is in the times section too
    if (type == EventType::kAlloc || type == EventType::kRealloc) ++allocations;
  }
  void value(int section, uint64_t v) {
    if (section == kPSecTimes && marking) advance += v;
    if (room(section)) at[section] = put_varint(at[section], v);
  }
  void zigzag(int section, uint64_t v, uint64_t previous) {
    if (room(section)) at[section] = put_delta(at[section], v, previous);
  }
};

}  // namespace

size_t compact_paired_batches(const uint8_t* gathered, size_t bytes, uint32_t batch_count, uint8_t* out,
                              uint8_t* const* sections) noexcept {
  SectionSink sink;
  for (int i = 0; i < kPairedSections; ++i) sink.begin[i] = sink.at[i] = sections[i];
  ThreadGuess guess;
  uint64_t previous_base = 0;
  size_t at = 0;
  for (uint32_t n = 0; n < batch_count; ++n) {
    uint16_t size;
    if (at + 2 > bytes) return 0;
    std::memcpy(&size, gathered + at, 2);
    if (size < sizeof(HeapPairedBatch) || at + 2 + size > bytes) return 0;
    HeapPairedBatch header;
    std::memcpy(&header, gathered + at + 2, sizeof header);
    uint64_t ordinal, time;
    guess.expect(header.thread_id, previous_base, ordinal, time);
    sink.value(kPSecBatches, header.thread_id);
    sink.value(kPSecBatches, header.event_count);
    sink.zigzag(kPSecBatches, header.base_time_ns, time);
    sink.zigzag(kPSecBatches, header.base_ordinal, ordinal);
    previous_base = header.base_time_ns;
    PlainSource in{{gathered + at + 2 + sizeof header, gathered + at + 2 + size}};
    sink.allocations = 0;
    sink.advance = 0;
    for (uint32_t e = 0; e < header.event_count; ++e)
      if (walk_paired_event(in, sink) < 0) return 0;
    if (in.s.at != in.s.end || sink.full) return 0;
    guess.set(header.thread_id, header.base_ordinal + sink.allocations, header.base_time_ns + sink.advance + 1);
    at += 2 + size;
  }
  if (at != bytes) return 0;
  size_t total = 0;
  for (int i = 0; i < kPairedSections; ++i) total += static_cast<size_t>(sink.at[i] - sink.begin[i]) + 10;
  if (total > kMaxCompactBytes) return 0;
  uint8_t* o = out;
  for (int i = 0; i < kPairedSections; ++i) o = put_varint(o, static_cast<uint64_t>(sink.at[i] - sink.begin[i]));
  for (int i = 0; i < kPairedSections; ++i) {
    std::memcpy(o, sink.begin[i], static_cast<size_t>(sink.at[i] - sink.begin[i]));
    o += sink.at[i] - sink.begin[i];
  }
  return static_cast<size_t>(o - out);
}

}  // namespace lumen::heap
