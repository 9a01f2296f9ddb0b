// What is still allocated when collection ends, in one pass over the
// records in file order, without holding the history.
//
// The pairing rule (heap_record.h) replays a process's events in time order
// (file order among equal stamps): an allocation makes its address live, and
// any later event at that address, a free or another allocation, ends it.
// So an allocation is live at the end exactly when it is the latest event
// at its address, and that needs only the latest event per address seen so
// far, whatever order the batches reach the file in: an event replaces the
// one kept at its address when its stamp is not earlier (it comes later in
// the file). Memory: one entry per address the heap or the mappings used,
// however many times each was reused. Heap blocks and mappings are apart.
#pragma once

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "heap_timeline.h"

namespace lumen::heap {

class LatestByAddress {
 public:
  // Each op in file order.
  void add(const HeapOp& op) {
    const uint64_t key = op.address ^ (op.mapping ? (1ull << 63) : 0);
    Slot& slot = find(key);
    if (slot.key == key && slot.used) {
      if (op.time_ns >= slot.latest.op.time_ns) slot.latest = {op, order_};
    } else {
      slot = {key, true, {op, order_}};
      if (++used_ * 2 > slots_.size()) grow();
    }
    ++order_;
  }
  // Takes in what `later` kept of the ops that followed this one's in the
  // file (a later part of it): as if this had been given them after its
  // own. The latest of two is the later stamp, then the later in the file.
  void merge(const LatestByAddress& later) {
    for (const Slot& theirs : later.slots_) {
      if (!theirs.used) continue;
      Slot& slot = find(theirs.key);
      const Latest rebased{theirs.latest.op, theirs.latest.order + order_};
      if (slot.used) {
        if (rebased.op.time_ns >= slot.latest.op.time_ns) slot.latest = rebased;
      } else {
        slot = {theirs.key, true, rebased};
        if (++used_ * 2 > slots_.size()) grow();
      }
    }
    order_ += later.order_;
  }
  bool empty() const { return used_ == 0; }
  void clear() {  // file order goes on
    slots_.clear();
    used_ = 0;
  }

  // The allocations live at the end, keyed as the sweep's LiveSet is.
  std::unordered_map<uint64_t, HeapOp> live() const {
    std::unordered_map<uint64_t, HeapOp> out;
    for (const Slot& slot : slots_)
      if (slot.used && slot.latest.op.allocation) out.emplace(slot.key, slot.latest.op);
    return out;
  }

  // The same, in time order (equal stamps: in file order).
  std::vector<HeapOp> live_in_time_order() const {
    std::vector<const Latest*> live;
    for (const Slot& slot : slots_)
      if (slot.used && slot.latest.op.allocation) live.push_back(&slot.latest);
    std::sort(live.begin(), live.end(), [](const Latest* a, const Latest* b) {
      return a->op.time_ns != b->op.time_ns ? a->op.time_ns < b->op.time_ns : a->order < b->order;
    });
    std::vector<HeapOp> out;
    out.reserve(live.size());
    for (const Latest* l : live) out.push_back(l->op);
    return out;
  }

 private:
  struct Latest {
    HeapOp op;
    uint64_t order;
  };
  // Open addressing, linear probing, at most half full: one lookup per
  // event, usually one cache line.
  struct Slot {
    uint64_t key;
    bool used;
    Latest latest;
  };
  static size_t hash(uint64_t key) { return static_cast<size_t>((key >> 4) * 0x9e3779b97f4a7c15ull >> 20); }
  Slot& find(uint64_t key) {
    if (slots_.empty()) slots_.resize(1024);
    const size_t mask = slots_.size() - 1;
    for (size_t i = hash(key) & mask;; i = (i + 1) & mask)
      if (!slots_[i].used || slots_[i].key == key) return slots_[i];
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& slot : old)
      if (slot.used) find(slot.key) = slot;
  }

  std::vector<Slot> slots_;
  size_t used_ = 0;
  uint64_t order_ = 0;
};

}  // namespace lumen::heap
