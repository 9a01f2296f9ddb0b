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
// however many times each was reused; in the paired form, where each
// allocation is an identity of its own, one per identity whose allocation
// or free is still unmatched in what was read (an identity allocated and
// freed is dropped). Heap blocks and mappings are apart.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "../heap_paired.h"
#include "heap_timeline.h"

namespace lumen::heap {

class LatestByAddress {
 public:
  // Each op in file order.
  void add(const HeapOp& op) { put(op.address ^ (op.mapping ? (1ull << 63) : 0), {op, order_++}); }
  // Takes in what `later` kept of the ops that followed this one's in the
  // file (a later part of it): as if this had been given them after its
  // own. The latest of two is the later stamp, then the later in the file.
  void merge(const LatestByAddress& later) {
    for (size_t i = 0; i < later.keys_.size(); ++i)
      if (later.keys_[i] != kEmpty) put(later.keys_[i], {later.latest_[i].op, later.latest_[i].order + order_});
    if (later.empty_key_) put(kEmpty, {later.empty_key_->op, later.empty_key_->order + order_});
    order_ += later.order_;
  }
  bool empty() const { return used_ == 0 && !empty_key_; }
  void clear() {  // file order goes on
    keys_.clear();
    latest_.clear();
    used_ = 0;
    empty_key_.reset();
  }

  // The allocations live at the end, keyed as the sweep's LiveSet is.
  std::unordered_map<uint64_t, HeapOp> live() const {
    std::unordered_map<uint64_t, HeapOp> out;
    for (size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] != kEmpty && latest_[i].op.allocation) out.emplace(keys_[i], latest_[i].op);
    if (empty_key_ && empty_key_->op.allocation) out.emplace(kEmpty, empty_key_->op);
    return out;
  }

  // The same, in time order (equal stamps: in file order).
  std::vector<HeapOp> live_in_time_order() const {
    std::vector<const Latest*> live;
    for (size_t i = 0; i < keys_.size(); ++i)
      if (keys_[i] != kEmpty && latest_[i].op.allocation) live.push_back(&latest_[i]);
    if (empty_key_ && empty_key_->op.allocation) live.push_back(&*empty_key_);
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
  // Open addressing, linear probing, at most half full, the keys apart from
  // what they hold: a lookup probes eight keys a cache line and touches one
  // entry. The one key equal to the empty mark (only a damaged file names
  // it) is kept on its own.
  static constexpr uint64_t kEmpty = UINT64_MAX;
  // An identity (the paired form) is allocated once and freed at most
  // once, after: its free is the latest event, whatever the marks say.
  static bool replaces(const Latest& later, const Latest& kept, uint64_t key) {
    if ((key & kIdentityBit) != 0 && later.op.allocation != kept.op.allocation) return !later.op.allocation;
    return later.op.time_ns >= kept.op.time_ns;
  }
  // Addresses are 16-byte aligned; identities are consecutive numbers.
  static size_t hash(uint64_t key) {
    const uint64_t k = (key & kIdentityBit) != 0 ? key : key >> 4;
    return static_cast<size_t>(k * 0x9e3779b97f4a7c15ull >> 20);
  }
  void put(uint64_t key, const Latest& latest) {
    if (key == kEmpty) {
      if (!empty_key_ || replaces(latest, *empty_key_, key)) empty_key_ = latest;
      return;
    }
    if (keys_.empty()) {
      keys_.assign(1024, kEmpty);
      latest_.resize(1024);
    }
    const size_t mask = keys_.size() - 1;
    size_t i = hash(key) & mask;
    while (keys_[i] != key && keys_[i] != kEmpty) i = (i + 1) & mask;
    if (keys_[i] == key) {
      // An identity allocated and freed is done with: neither event can
      // matter again, and a program's every allocation is an identity.
      if ((key & kIdentityBit) != 0 && latest.op.allocation != latest_[i].op.allocation) return erase_at(i);
      if (replaces(latest, latest_[i], key)) latest_[i] = latest;
      return;
    }
    keys_[i] = key;
    latest_[i] = latest;
    if (++used_ * 2 > keys_.size()) grow();
  }
  // Backward shift: the entries after it in its run move up where their
  // probe passes, so no lookup stops early.
  void erase_at(size_t i) {
    const size_t mask = keys_.size() - 1;
    for (size_t j = (i + 1) & mask; keys_[j] != kEmpty; j = (j + 1) & mask) {
      const size_t home = hash(keys_[j]) & mask;
      if (((j - home) & mask) >= ((j - i) & mask)) {
        keys_[i] = keys_[j];
        latest_[i] = latest_[j];
        i = j;
      }
    }
    keys_[i] = kEmpty;
    --used_;
  }
  void grow() {
    std::vector<uint64_t> keys(keys_.size() * 2, kEmpty);
    std::vector<Latest> latest(keys.size());
    keys.swap(keys_);
    latest.swap(latest_);
    const size_t mask = keys_.size() - 1;
    for (size_t j = 0; j < keys.size(); ++j) {
      if (keys[j] == kEmpty) continue;
      size_t i = hash(keys[j]) & mask;
      while (keys_[i] != kEmpty) i = (i + 1) & mask;
      keys_[i] = keys[j];
      latest_[i] = latest[j];
    }
  }

  std::vector<uint64_t> keys_;
  std::vector<Latest> latest_;
  size_t used_ = 0;
  std::optional<Latest> empty_key_;
  uint64_t order_ = 0;
};

}  // namespace lumen::heap
