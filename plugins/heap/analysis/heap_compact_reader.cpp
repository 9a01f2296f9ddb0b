#include "heap_compact_reader.h"

#include <unordered_map>
#include <vector>

#include "../heap_compact.h"

namespace lumen::heap {

namespace {

// One section being read; a read past its end leaves it failed.
struct Section {
  const uint8_t* at = nullptr;
  const uint8_t* end = nullptr;
  bool failed = false;
  uint64_t varint() {
    uint64_t value = 0;
    const uint8_t* next = failed ? nullptr : get_varint(at, end, value);
    if (next == nullptr) failed = true;
    else at = next;
    return value;
  }
  uint64_t delta(uint64_t previous) {
    uint64_t value = 0;
    const uint8_t* next = failed ? nullptr : get_delta(at, end, previous, value);
    if (next == nullptr) failed = true;
    else at = next;
    return value;
  }
};

const char* const kSectionNames[kCompactSections] = {"batches", "tags", "times", "pair references",
                                                     "pair definitions", "free references", "addresses"};

struct Pair {
  uint64_t size;
  uint64_t stack_plus_one;
};

}  // namespace

bool split_sections(const uint8_t* data, size_t bytes, int count, const char* const* names, const uint8_t** begins,
                    const uint8_t** ends, std::string& error) {
  const uint8_t* at = data;
  const uint8_t* const end = data + bytes;
  uint64_t lengths[16];
  if (count > 16) return false;
  for (int i = 0; i < count; ++i) {
    at = at == nullptr ? nullptr : get_varint(at, end, lengths[i]);
    if (at == nullptr) {
      error = "it ends inside its section lengths";
      return false;
    }
  }
  for (int i = 0; i < count; ++i) {
    if (lengths[i] > static_cast<uint64_t>(end - at)) {
      error = std::string("its ") + names[i] + " section runs past its end";
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

bool decode_compact(const uint8_t* data, size_t bytes, uint32_t batch_count, HeapRecordReader& reader,
                    std::string& error) {
  Section s[kCompactSections];
  const uint8_t* begins[kCompactSections];
  const uint8_t* ends[kCompactSections];
  if (!split_sections(data, bytes, kCompactSections, kSectionNames, begins, ends, error)) return false;
  for (int i = 0; i < kCompactSections; ++i) {
    s[i].at = begins[i];
    s[i].end = ends[i];
  }
  static thread_local std::vector<Pair> pairs;
  static thread_local std::unordered_map<uint32_t, std::vector<uint64_t>> allocated_by_thread;
  pairs.clear();
  if (allocated_by_thread.size() > 4096) allocated_by_thread.clear();  // thread ids of a hostile file, unbounded
  for (auto& [thread, addresses] : allocated_by_thread) addresses.clear();
  uint64_t base = 0;
  const auto fail = [&](const std::string& what) {
    error = what;
    return false;
  };
  for (uint32_t b = 0; b < batch_count; ++b) {
    const auto thread_id = static_cast<uint32_t>(s[kSecBatches].varint());
    const uint64_t count = s[kSecBatches].varint();
    base = s[kSecBatches].delta(base);
    if (s[kSecBatches].failed) return fail("the batches section ends inside batch " + std::to_string(b));
    if (count > static_cast<uint64_t>(s[kSecTags].end - s[kSecTags].at))
      return fail("batch " + std::to_string(b) + " claims more events than there are tags");
    std::vector<uint64_t>& allocated = allocated_by_thread[thread_id];
    uint64_t time = base, address = 0;
    const auto freed_address = [&]() {
      const uint64_t k = s[kSecFreeRefs].varint();
      if (k == 0) return s[kSecAddresses].delta(address);
      if (k > allocated.size()) {
        s[kSecFreeRefs].failed = true;
        return uint64_t{0};
      }
      return allocated[allocated.size() - k];
    };
    const auto pair = [&]() {
      const uint64_t index = s[kSecPairRefs].varint();
      if (index == pairs.size()) {
        const uint64_t size = s[kSecPairDefs].varint();
        pairs.push_back({size, s[kSecPairDefs].varint()});
      } else if (index > pairs.size()) {
        s[kSecPairRefs].failed = true;
        return Pair{0, 0};
      }
      return pairs[index];
    };
    for (uint64_t n = 0; n < count; ++n) {
      const uint8_t tag = *s[kSecTags].at++;
      const auto type = static_cast<EventType>((tag >> 4) & 0x7);
      const auto allocator = static_cast<Allocator>(tag & 0xf);
      if (static_cast<int>(allocator) >= kAllocatorCount)
        return fail("event " + std::to_string(n) + " of batch " + std::to_string(b) + " names allocator " +
                    std::to_string(tag & 0xf));
      const bool mapping = is_mapping(allocator);
      switch (type) {
        case EventType::kAlloc: {
          time = s[kSecTimes].delta(time);
          address = s[kSecAddresses].delta(address);
          const Pair p = pair();
          allocated.push_back(address);
          reader.op({time, address, p.size, p.stack_plus_one - 1, thread_id, true, mapping, allocator});
          break;
        }
        case EventType::kFree:
        case EventType::kUnmap:
          time = s[kSecTimes].delta(time);
          address = freed_address();
          reader.op({time, address, 0, 0, thread_id, false, type == EventType::kUnmap, allocator});
          break;
        case EventType::kRealloc: {
          const uint64_t free_time = s[kSecTimes].delta(time);
          time = free_time + s[kSecTimes].varint();
          if ((tag & kTagFreedOld) != 0) {
            address = freed_address();
            reader.op({free_time, address, 0, 0, thread_id, false, mapping, allocator});
          }
          address = s[kSecAddresses].delta(address);
          const Pair p = pair();
          allocated.push_back(address);
          reader.op({time, address, p.size, p.stack_plus_one - 1, thread_id, true, mapping, allocator});
          break;
        }
        default:
          return fail("event " + std::to_string(n) + " of batch " + std::to_string(b) + " has the unknown type " +
                      std::to_string((tag >> 4) & 0x7));
      }
      for (int i = 0; i < kCompactSections; ++i)
        if (s[i].failed)
          return fail(std::string("the ") + kSectionNames[i] + " section does not fit event " + std::to_string(n) +
                      " of batch " + std::to_string(b));
    }
    reader.batch_end();
  }
  for (int i = 0; i < kCompactSections; ++i)
    if (s[i].at != s[i].end)
      return fail(std::to_string(s[i].end - s[i].at) + " bytes left in the " + kSectionNames[i] + " section");
  return true;
}

}  // namespace lumen::heap
