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
    const auto [it, inserted] = latest_.try_emplace(op.address ^ (op.mapping ? (1ull << 63) : 0), Latest{op, order_});
    if (!inserted && op.time_ns >= it->second.op.time_ns) it->second = {op, order_};
    ++order_;
  }
  bool empty() const { return latest_.empty(); }
  void clear() { latest_.clear(); }  // file order goes on

  // The allocations live at the end, keyed as the sweep's LiveSet is.
  std::unordered_map<uint64_t, HeapOp> live() const {
    std::unordered_map<uint64_t, HeapOp> out;
    for (const auto& [key, latest] : latest_)
      if (latest.op.allocation) out.emplace(key, latest.op);
    return out;
  }

  // The same, in time order (equal stamps: in file order).
  std::vector<HeapOp> live_in_time_order() const {
    std::vector<const Latest*> live;
    for (const auto& [key, latest] : latest_)
      if (latest.op.allocation) live.push_back(&latest);
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
  std::unordered_map<uint64_t, Latest> latest_;
  uint64_t order_ = 0;
};

}  // namespace lumen::heap
