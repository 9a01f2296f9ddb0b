#include "heap_compact.h"

#include <cstring>

namespace lumen::heap {

namespace {

uint64_t mix(uint64_t a, uint64_t b) {
  const uint64_t h = (a ^ (b * 0xc2b2ae3d27d4eb4full)) * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

// One section being written: bounded by its buffer.
struct Writer {
  uint8_t* begin;
  uint8_t* at;
  bool room(size_t bytes) const { return static_cast<size_t>(at - begin) + bytes <= kMaxCompactBytes; }
};

class Encoder {
 public:
  explicit Encoder(CompactScratch& s) : s_(s) {
    for (int i = 0; i < kCompactSections; ++i) out_[i] = {s.sections[i], s.sections[i]};
    constexpr uint32_t kGenerations = 1u << (32 - CompactScratch::kOrdinalBits);
    if (++s.generation >= kGenerations) {  // entries of an equal generation number may linger: clear them
      for (size_t i = 0; i < s.address_slots; ++i) s.addresses[i] = {};
      s.generation = 1;
    }
    generation_ = s.generation << CompactScratch::kOrdinalBits;
  }
  ~Encoder() { clear(); }

  bool batch(const uint8_t* data, size_t bytes);
  size_t finish(uint8_t* out);

 private:
  bool put(int section, uint64_t value) {
    if (!out_[section].room(10)) return false;
    out_[section].at = put_varint(out_[section].at, value);
    return true;
  }
  bool put_zigzag(int section, uint64_t value, uint64_t previous) {
    if (!out_[section].room(10)) return false;
    out_[section].at = put_delta(out_[section].at, value, previous);
    return true;
  }
  void touch(uint32_t slot) { s_.touched[touched_++] = slot; }
  void clear();
  CompactScratch::ThreadSlot* thread_slot(uint32_t thread_id);
  bool pair_ref(uint64_t size, uint64_t stack_plus_one);
  bool freed(uint64_t address, uint64_t previous_address);
  void allocated(uint64_t address);
  const uint8_t* allocation(const uint8_t* in, const uint8_t* end, uint64_t& address);

  CompactScratch& s_;
  Writer out_[kCompactSections];
  size_t touched_ = 0;
  size_t threads_used_ = 0;
  uint32_t generation_;  // shifted into place
  uint32_t pairs_defined_ = 0;
  uint64_t previous_base_ = 0;
  uint32_t thread_id_ = 0;
  CompactScratch::ThreadSlot* thread_ = nullptr;  // nullptr: the table was full, no references
};

void Encoder::clear() {
  for (size_t i = 0; i < touched_; ++i) {
    const uint32_t slot = s_.touched[i];
    if (slot < s_.pair_slots)
      s_.pairs[slot] = {};
    else
      s_.threads[slot - s_.pair_slots] = {};
  }
  touched_ = 0;
}

CompactScratch::ThreadSlot* Encoder::thread_slot(uint32_t thread_id) {
  const size_t mask = s_.thread_slots - 1;
  for (size_t i = mix(thread_id, 1) & mask, probes = 0; probes < s_.thread_slots; i = (i + 1) & mask, ++probes) {
    CompactScratch::ThreadSlot& slot = s_.threads[i];
    if (slot.used != 0 && slot.thread_id == thread_id) return &slot;
    if (slot.used == 0) {
      if (threads_used_ * 2 >= s_.thread_slots) return nullptr;
      ++threads_used_;
      slot = {thread_id, 0, 1, 0};
      touch(static_cast<uint32_t>(s_.pair_slots + i));
      return &slot;
    }
  }
  return nullptr;
}

bool Encoder::pair_ref(uint64_t size, uint64_t stack_plus_one) {
  const size_t mask = s_.pair_slots - 1;
  for (size_t i = mix(size, stack_plus_one) & mask;; i = (i + 1) & mask) {
    CompactScratch::PairSlot& slot = s_.pairs[i];
    if (slot.index_plus_one != 0 && slot.size == size && slot.stack_plus_one == stack_plus_one)
      return put(kSecPairRefs, slot.index_plus_one - 1);
    if (slot.index_plus_one == 0) {
      if (pairs_defined_ * 2 < s_.pair_slots) {  // else defined again each time: only less compact
        slot = {size, stack_plus_one, pairs_defined_ + 1, 0};
        touch(static_cast<uint32_t>(i));
      }
      break;
    }
  }
  return put(kSecPairRefs, pairs_defined_++) && put(kSecPairDefs, size) && put(kSecPairDefs, stack_plus_one);
}

bool Encoder::freed(uint64_t address, uint64_t previous_address) {
  constexpr uint32_t kOrdinalMask = (1u << CompactScratch::kOrdinalBits) - 1;
  if (thread_ != nullptr) {
    const CompactScratch::AddressSlot& slot = s_.addresses[mix(address, thread_id_) & (s_.address_slots - 1)];
    if ((slot.tag & ~kOrdinalMask) == generation_ && slot.address == address && slot.thread_id == thread_id_)
      return put(kSecFreeRefs, thread_->allocations - (slot.tag & kOrdinalMask));
  }
  return put(kSecFreeRefs, 0) && put_zigzag(kSecAddresses, address, previous_address);
}

void Encoder::allocated(uint64_t address) {
  if (thread_ == nullptr) return;
  const uint32_t ordinal = thread_->allocations++;
  if (ordinal >> CompactScratch::kOrdinalBits != 0) return;  // too far to refer to
  s_.addresses[mix(address, thread_id_) & (s_.address_slots - 1)] = {address, thread_id_, generation_ | ordinal};
}

// An allocation's address, size and stack, read from a plain batch at `in`.
const uint8_t* Encoder::allocation(const uint8_t* in, const uint8_t* end, uint64_t& address) {
  uint64_t value = 0, size = 0, stack = 0;
  if (!(in = get_delta(in, end, address, value)) || !put_zigzag(kSecAddresses, value, address)) return nullptr;
  address = value;
  if (!(in = get_varint(in, end, size)) || !(in = get_varint(in, end, stack)) || !pair_ref(size, stack)) return nullptr;
  allocated(address);
  return in;
}

bool Encoder::batch(const uint8_t* data, size_t bytes) {
  if (bytes < sizeof(HeapBatch)) return false;
  HeapBatch header;
  std::memcpy(&header, data, sizeof header);
  if (!put(kSecBatches, header.thread_id) || !put(kSecBatches, header.event_count) ||
      !put_zigzag(kSecBatches, header.base_time_ns, previous_base_))
    return false;
  previous_base_ = header.base_time_ns;
  if (thread_ == nullptr || thread_id_ != header.thread_id) {
    thread_id_ = header.thread_id;
    thread_ = thread_slot(header.thread_id);
  }
  const uint8_t* in = data + sizeof header;
  const uint8_t* const end = data + bytes;
  uint64_t time = header.base_time_ns, address = 0, value = 0;
  for (uint32_t n = 0; n < header.event_count; ++n) {
    if (in >= end || !out_[kSecTags].room(1)) return false;
    const uint8_t tag = *in++;
    *out_[kSecTags].at++ = tag;
    const auto type = static_cast<EventType>((tag >> 4) & 0x7);
    const uint64_t previous_time = time;
    switch (type) {
      case EventType::kAlloc:
        if (!(in = get_delta(in, end, time, time)) || !put_zigzag(kSecTimes, time, previous_time)) return false;
        if (!(in = allocation(in, end, address))) return false;
        break;
      case EventType::kFree:
      case EventType::kUnmap:
        if (!(in = get_delta(in, end, time, time)) || !put_zigzag(kSecTimes, time, previous_time)) return false;
        if (!(in = get_delta(in, end, address, value)) || !freed(value, address)) return false;
        address = value;
        break;
      case EventType::kRealloc: {
        uint64_t free_time = 0, after = 0;
        if (!(in = get_delta(in, end, time, free_time)) || !put_zigzag(kSecTimes, free_time, time)) return false;
        if (!(in = get_varint(in, end, after)) || !put(kSecTimes, after)) return false;
        time = free_time + after;
        if ((tag & kTagFreedOld) != 0) {
          if (!(in = get_delta(in, end, address, value)) || !freed(value, address)) return false;
          address = value;
        }
        if (!(in = allocation(in, end, address))) return false;
        break;
      }
      default:
        return false;
    }
  }
  return true;
}

size_t Encoder::finish(uint8_t* out) {
  uint8_t* at = out;
  size_t total = 0;
  for (const Writer& w : out_) total += static_cast<size_t>(w.at - w.begin) + 10;
  if (total > kMaxCompactBytes) return 0;
  for (const Writer& w : out_) at = put_varint(at, static_cast<uint64_t>(w.at - w.begin));
  for (const Writer& w : out_) {
    std::memcpy(at, w.begin, static_cast<size_t>(w.at - w.begin));
    at += w.at - w.begin;
  }
  return static_cast<size_t>(at - out);
}

}  // namespace

void compact_scratch_reset(CompactScratch& scratch) noexcept {
  if (scratch.addresses != nullptr) std::memset(scratch.addresses, 0, scratch.address_slots * sizeof *scratch.addresses);
  if (scratch.pairs != nullptr) std::memset(scratch.pairs, 0, scratch.pair_slots * sizeof *scratch.pairs);
  if (scratch.threads != nullptr) std::memset(scratch.threads, 0, scratch.thread_slots * sizeof *scratch.threads);
  scratch.generation = 0;
}

size_t compact_batches(const uint8_t* gathered, size_t bytes, uint32_t batch_count, uint8_t* out,
                       CompactScratch& scratch) noexcept {
  Encoder encoder(scratch);
  size_t at = 0;
  for (uint32_t n = 0; n < batch_count; ++n) {
    uint16_t size;
    if (at + 2 > bytes) return 0;
    std::memcpy(&size, gathered + at, 2);
    if (at + 2 + size > bytes || !encoder.batch(gathered + at + 2, size)) return 0;
    at += 2 + size;
  }
  return at == bytes ? encoder.finish(out) : 0;
}

}  // namespace lumen::heap
