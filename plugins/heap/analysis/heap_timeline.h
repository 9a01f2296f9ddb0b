// Pairing deallocations with allocations, on the host.
//
// Records of different threads interleave in the file, so their order there
// is not time order. A HeapTimeline collects what the records say, sorts it by
// time (stably: one thread's records keep their program order on equal
// stamps) and replays it, pairing each free with the live allocation at its
// address. A free of an address with no live allocation (a block allocated
// before collection, a double free, a foreign pointer) is counted and
// otherwise ignored. An allocation at an address that is still live means the
// old block went away unseen (the allocator cannot hand out a live block; a
// MAP_FIXED mapping replaces what was there): the old one is released.
// Heap blocks and mappings are paired in separate address spaces.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "../heap_record.h"

namespace lumen::heap {

struct HeapOp {
  uint64_t time_ns;
  uint64_t address;
  uint64_t size;      // allocations only
  uint64_t stack_id;  // allocations only
  uint32_t thread_id;
  bool allocation;    // else a deallocation
  bool mapping;       // mmap/mremap/munmap rather than the heap
  Allocator allocator;
  // Set by a view while it reads the op's experiment: the row its
  // allocation belongs to, and whether the user's selection takes it.
  uint32_t group = UINT32_MAX;
  bool selected = true;
  // The paired form's peak order (heap_paired.h): the highest bytes in use
  // the op's event saw (the reader: 0 unless it rose; HeapData: its
  // thread's latest), and whether that event raised it.
  bool raised_highest = false;
  uint64_t highest = 0;
};

// What the records of a heaptrace file say, handed to a reader:
//   start(const HeapStart&)   a process began collecting (first record of its file)
//   op(const HeapOp&)         an allocation or a deallocation
//   batch_end()               the ops since the last call were one batch
// Returns false, with a message in `error`, when the record does not fit
// its kind or its kind is not one of heap_record.h's.
class HeapRecordReader {
 public:
  virtual ~HeapRecordReader() = default;
  virtual void start(const HeapStart& start) = 0;
  virtual void op(const HeapOp& op) = 0;
  virtual void batch_end() {}  // after the last op of each batch
};
bool decode_heap_record(uint16_t kind, const void* payload, uint16_t payload_bytes, HeapRecordReader& reader,
                        std::string& error);

class HeapTimeline {
 public:
  void add(const HeapOp& op) { ops_.push_back(op); }
  size_t size() const { return ops_.size(); }

  // Sorts the operations by time; call once, after the last add().
  void finish();

  // The operations in time order (after finish()).
  const std::vector<HeapOp>& ops() const { return ops_; }

  // Replays the first `count` operations in time order. The visitor gets
  //   allocated(index)                       an allocation became live
  //   released(alloc_index, free_index)      a free matched it (free_index is
  //                                          the allocation that replaced it
  //                                          when the release was implicit)
  //   unmatched(free_index)                  a free of no live allocation
  // and the indices of the allocations still live afterwards, in time order,
  // are returned.
  template <typename Visitor>
  std::vector<size_t> replay(Visitor&& visitor, size_t count = SIZE_MAX) const;

 private:
  static uint64_t key(const HeapOp& op) { return op.address ^ (op.mapping ? (1ull << 63) : 0); }
  std::vector<HeapOp> ops_;
};

template <typename Visitor>
std::vector<size_t> HeapTimeline::replay(Visitor&& visitor, size_t count) const {
  std::unordered_map<uint64_t, size_t> live;
  const size_t end = count < ops_.size() ? count : ops_.size();
  for (size_t i = 0; i < end; ++i) {
    const HeapOp& op = ops_[i];
    if (op.allocation) {
      const auto [it, inserted] = live.try_emplace(key(op), i);
      if (!inserted) {
        visitor.released(it->second, i);
        it->second = i;
      }
      visitor.allocated(i);
    } else if (const auto it = live.find(key(op)); it != live.end()) {
      visitor.released(it->second, i);
      live.erase(it);
    } else {
      visitor.unmatched(i);
    }
  }
  std::vector<size_t> remaining;
  remaining.reserve(live.size());
  for (const auto& [address, index] : live) remaining.push_back(index);
  std::sort(remaining.begin(), remaining.end());
  return remaining;
}

// A visitor for replay() that only pairs.
struct PairOnly {
  void allocated(size_t) {}
  void released(size_t, size_t) {}
  void unmatched(size_t) {}
};

// A visitor for replay() that follows the bytes in use and remembers their
// peak: the first moment they reached their highest value.
// Only selected allocations count (HeapOp::selected): with a selection, the
// peak is that of the bytes the selected allocations hold.
struct PeakFinder {
  explicit PeakFinder(const std::vector<HeapOp>& timeline_ops) : ops(&timeline_ops) {}

  const std::vector<HeapOp>* ops;
  uint64_t in_use = 0;      // bytes of the live allocations
  uint64_t live = 0;        // live allocations
  uint64_t peak_bytes = 0;
  uint64_t peak_live = 0;
  uint64_t peak_time = 0;
  size_t peak_end = 0;      // operations replayed when the peak was reached: replay(..., peak_end) stops there
  uint64_t frees = 0;       // deallocations that matched an allocation
  uint64_t unmatched_frees = 0;

  void allocated(size_t i) {
    if (!(*ops)[i].selected) return;
    in_use += (*ops)[i].size;
    live += 1;
    if (in_use > peak_bytes) {
      peak_bytes = in_use;
      peak_live = live;
      peak_time = (*ops)[i].time_ns;
      peak_end = i + 1;
    }
  }
  void released(size_t allocation, size_t by) {
    if (!(*ops)[allocation].selected) return;
    in_use -= (*ops)[allocation].size;
    live -= 1;
    if (!(*ops)[by].allocation) frees += 1;
  }
  void unmatched(size_t i) {
    if ((*ops)[i].selected) unmatched_frees += 1;
  }
};

}  // namespace lumen::heap
