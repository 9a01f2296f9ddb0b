#include "heap_paired_reader.h"

#include <cstring>

#include "../heap_paired.h"

namespace lumen::heap {

namespace {

const char* const kSectionNames[kPairedSections] = {"batches", "tags", "times", "pairs", "references", "extras"};

// A compact frame's sections: their varint lengths, then the sections;
// false, with the reason, when they do not fit `bytes` exactly.
bool split_sections(const uint8_t* data, size_t bytes, const uint8_t** begins, const uint8_t** ends,
                    std::string& error) {
  const uint8_t* at = data;
  const uint8_t* const end = data + bytes;
  uint64_t lengths[kPairedSections];
  for (uint64_t& length : lengths) {
    at = at == nullptr ? nullptr : get_varint(at, end, length);
    if (at == nullptr) {
      error = "it ends inside its section lengths";
      return false;
    }
  }
  for (int i = 0; i < kPairedSections; ++i) {
    if (lengths[i] > static_cast<uint64_t>(end - at)) {
      error = std::string("its ") + kSectionNames[i] + " section runs past its end";
      return false;
    }
    begins[i] = at;
    ends[i] = at + lengths[i];
    at += lengths[i];
  }
  if (at != end) {
    error = "it has " + std::to_string(end - at) + " bytes after its sections";
    return false;
  }
  return true;
}

// The events of one batch from `in` (a PlainSource or a SectionSource),
// told to `reader`. The data is untrusted: every number is checked before
// it names anything.
template <typename Source>
bool decode_events(Source& in, const HeapPairedBatch& batch, HeapRecordReader& reader, std::string& error,
                   uint64_t* end_time = nullptr, uint64_t* end_ordinal = nullptr) {
  uint64_t time = batch.base_time_ns;
  uint64_t ordinal = batch.base_ordinal;
  const uint32_t thread = batch.thread_id;
  uint64_t highest = 0;  // from a kHighest, for the next event
  bool raised = false;
  const auto where = [&](uint32_t n) { return "event " + std::to_string(n) + " of the batch of thread " +
                                              std::to_string(thread); };
  if (thread >= kMaxIdentityThread) {
    error = "a batch names thread " + std::to_string(thread) + ", beyond what identities hold";
    return false;
  }
  for (uint32_t n = 0; n < batch.event_count; ++n) {
    uint8_t tag = 0;
    if (!in.tag(tag)) {
      error = where(n) + " is missing";
      return false;
    }
    const auto type = static_cast<EventType>((tag >> 4) & 0x7);
    const auto allocator = static_cast<Allocator>(tag & 0xf);
    if (static_cast<int>(allocator) >= kAllocatorCount) {
      error = where(n) + " names allocator " + std::to_string(tag & 0xf);
      return false;
    }
    const bool mapping = is_mapping(allocator) || type == EventType::kUnmap;
    // What a free released: an identity, or an address not seen allocated.
    const auto freed = [&](uint64_t& key) {
      uint64_t ref = 0, extra = 0;
      if (!in.value(kPSecRefs, ref)) return false;
      switch (static_cast<RefKind>(ref & 3)) {
        case RefKind::kOwn:
          if ((ref >> 2) == 0 || (ref >> 2) > ordinal) {
            error = where(n) + " frees allocation " + std::to_string(ref >> 2) + " back of " + std::to_string(ordinal);
            return false;
          }
          key = identity_key(thread, ordinal - (ref >> 2));
          return true;
        case RefKind::kOther:
          if (!in.value(kPSecExtras, extra)) return false;
          if ((ref >> 2) >= kMaxIdentityThread || extra >= kMaxOrdinal) {
            error = where(n) + " frees an allocation of thread " + std::to_string(ref >> 2) + " numbered " +
                    std::to_string(extra) + ", beyond what identities hold";
            return false;
          }
          key = identity_key(static_cast<uint32_t>(ref >> 2), extra);
          return true;
        case RefKind::kAddress:
          if (!in.value(kPSecExtras, extra)) return false;
          if ((extra & kIdentityBit) != 0) {
            error = where(n) + " frees address " + std::to_string(extra) + ", in the identities' range";
            return false;
          }
          key = extra;
          return true;
      }
      error = where(n) + " has a reference of unknown kind " + std::to_string(ref & 3);
      return false;
    };
    // A kHighest before the event: what its ops carry.
    const auto told = [&](HeapOp op) {
      op.highest = highest;
      op.raised_highest = raised;
      reader.op(op);
    };
    const auto allocated = [&]() {
      uint64_t size = 0, stack = 0;
      if (!in.value(kPSecPairs, size) || !in.value(kPSecPairs, stack)) return false;
      if (ordinal >= kMaxOrdinal) {
        error = where(n) + " is allocation " + std::to_string(ordinal) + " of its thread, beyond what identities hold";
        return false;
      }
      told({time, identity_key(thread, ordinal++), size, stack - 1, thread, true, mapping, allocator});
      return true;
    };
    bool ok = true;
    uint64_t key = 0;
    switch (type) {
      case EventType::kMark: {
        uint64_t advance = 0;
        if (highest != 0) {
          error = where(n) + " is a mark after a highest value of bytes in use, not an event";
          return false;
        }
        ok = in.value(kPSecTimes, advance);
        if (ok && (advance == 0 || advance > UINT64_MAX - time)) {
          error = where(n) + " is a mark " + std::to_string(advance) + " ns on, not later";
          return false;
        }
        time += advance;
        break;
      }
      case EventType::kHighest: {
        uint64_t value = 0;
        ok = in.value(kPSecTimes, value);
        if (ok && (value >> 1) <= highest) {
          error = where(n) + " says the highest bytes in use were " + std::to_string(value >> 1) +
                  ", not above the " + std::to_string(highest) + " it said before";
          return false;
        }
        highest = value >> 1;
        raised = (value & 1) != 0;
        continue;  // to the event it is about
      }
      case EventType::kAlloc:
        ok = allocated();
        break;
      case EventType::kFree:
      case EventType::kUnmap:
        ok = freed(key);
        if (ok) told({time, key, 0, 0, thread, false, mapping, allocator});
        break;
      case EventType::kRealloc:
        if ((tag & kTagFreedOld) != 0) {
          ok = freed(key);
          if (ok) told({time, key, 0, 0, thread, false, mapping, allocator});
        }
        ok = ok && allocated();
        break;
      default:
        error = where(n) + " has the unknown type " + std::to_string((tag >> 4) & 0x7);
        return false;
    }
    if (!ok) {
      if (error.empty()) error = where(n) + " ends early";
      return false;
    }
    highest = 0;
    raised = false;
  }
  if (highest != 0) {
    error = "the batch of thread " + std::to_string(thread) + " ends after a highest value of bytes in use";
    return false;
  }
  reader.batch_end();
  if (end_time != nullptr) *end_time = time;
  if (end_ordinal != nullptr) *end_ordinal = ordinal;
  return true;
}

}  // namespace

bool decode_paired_batch(const uint8_t* data, size_t bytes, HeapRecordReader& reader, std::string& error) {
  HeapPairedBatch batch;
  if (bytes < sizeof batch) {
    error = "paired heap batch record of " + std::to_string(bytes) + " bytes; its header alone needs " +
            std::to_string(sizeof batch);
    return false;
  }
  std::memcpy(&batch, data, sizeof batch);
  PlainSource in{{data + sizeof batch, data + bytes}};
  if (!decode_events(in, batch, reader, error)) {
    error = "paired heap batch record: " + error;
    return false;
  }
  if (in.s.at != in.s.end) {
    error = "paired heap batch record has " + std::to_string(in.s.end - in.s.at) + " bytes after its " +
            std::to_string(batch.event_count) + " events";
    return false;
  }
  return true;
}

bool decode_paired_compact(const uint8_t* data, size_t bytes, uint32_t batch_count, HeapRecordReader& reader,
                           std::string& error) {
  VarintStream s[kPairedSections];
  const uint8_t* begins[kPairedSections];
  const uint8_t* ends[kPairedSections];
  if (!split_sections(data, bytes, begins, ends, error)) return false;
  for (int i = 0; i < kPairedSections; ++i) {
    s[i].at = begins[i];
    s[i].end = ends[i];
  }
  ThreadGuess guess;
  uint64_t base = 0;
  SectionSource in{s};
  for (uint32_t b = 0; b < batch_count; ++b) {
    uint64_t thread = 0, count = 0, ordinal = 0, expected_ordinal = 0, expected_time = 0;
    VarintStream& batches = s[kPSecBatches];
    if (!batches.varint(thread) || !batches.varint(count)) {
      error = "the batches section ends inside batch " + std::to_string(b);
      return false;
    }
    if (thread >= kMaxIdentityThread || count > static_cast<uint64_t>(s[kPSecTags].end - s[kPSecTags].at)) {
      error = "batch " + std::to_string(b) + " names thread " + std::to_string(thread) + " and " +
              std::to_string(count) + " events, more than the tags section holds";
      return false;
    }
    guess.expect(static_cast<uint32_t>(thread), base, expected_ordinal, expected_time);
    if (!batches.delta(expected_time, base) || !batches.delta(expected_ordinal, ordinal)) {
      error = "the batches section ends inside batch " + std::to_string(b);
      return false;
    }
    const HeapPairedBatch batch{base, static_cast<uint32_t>(thread), static_cast<uint32_t>(count), ordinal};
    uint64_t end_time = 0, end_ordinal = 0;
    if (!decode_events(in, batch, reader, error, &end_time, &end_ordinal)) {
      for (int i = 0; i < kPairedSections; ++i)
        if (s[i].failed) error = "the " + std::string(kSectionNames[i]) + " section ends early: " + error;
      error += " (batch " + std::to_string(b) + ")";
      return false;
    }
    guess.set(static_cast<uint32_t>(thread), end_ordinal, end_time + 1);
  }
  for (int i = 0; i < kPairedSections; ++i)
    if (s[i].at != s[i].end) {
      error = std::to_string(s[i].end - s[i].at) + " bytes left in the " + kSectionNames[i] + " section";
      return false;
    }
  return true;
}

}  // namespace lumen::heap
