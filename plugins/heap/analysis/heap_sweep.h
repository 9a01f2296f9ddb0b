// Pairing in time order without holding the history (the views' way; the
// HeapTimeline in heap_timeline.h holds everything and is what the
// -functions decoder uses).
//
// A process's batches reach the file out of time order (each thread writes
// its own blocks, batches wait for the compressor, a thread's last batch is
// written when it ends), but the events of one batch are one thread's, in
// its order. Two passes over the file:
//  1. index each batch: its process (experiment), its earliest stamp, its
//     place in the file; a batch that arrives late (more than kKeepAfter
//     batches read before it start later than it does: a thread's last
//     batch, written when it ends) is kept whole now, so that it does not
//     hold the others back in pass 2. A batch that arrives early (a thread
//     writing into a block it reserved long before) costs only itself;
//  2. read the batches again and merge their events by (experiment, stamp,
//     place of the batch in the file, place in the batch): exactly the
//     order of a stable sort of the whole history by stamp. An event is
//     replayed as soon as no batch still unread can hold an earlier one.
// In memory: the index, the kept batches, the events read but not yet
// replayable, and the allocations live in the replay.
//
// The replay pairs as HeapTimeline::replay does (a free releases the live
// allocation at its address; an allocation at a live address releases the
// old one; a free of nothing live is unmatched; heap blocks and mappings
// apart; each experiment on its own) and tells a visitor with
//   allocated(const HeapOp&)
//   released(const HeapOp& allocation, const HeapOp& by)   by: the free or the new allocation
//   unmatched(const HeapOp& free)
//   experiment_end(uint32_t experiment, const LiveSet& live)  the allocations never released
// and, when the visitor has it, experiment_begin(uint32_t experiment) before
// an experiment's first op.
#pragma once

#include <cstdint>
#include <queue>
#include <unordered_map>
#include <vector>

#include "heap_timeline.h"

namespace lumen::heap {

using LiveSet = std::unordered_map<uint64_t, HeapOp>;

class HeapSweep {
 public:
  static constexpr size_t kKeepAfter = 1024;
  explicit HeapSweep(size_t keep_after = kKeepAfter) : keep_after_(keep_after) {}
  ~HeapSweep();
  HeapSweep(const HeapSweep&) = delete;
  HeapSweep& operator=(const HeapSweep&) = delete;

  // Pass 1, each batch in file order: true when the sweep keeps it now
  // (then hand its events, annotated, to keep()).
  bool index_batch(uint32_t experiment, const std::vector<HeapOp>& ops);
  void keep(std::vector<HeapOp> ops);

  // Between the passes.
  void plan();

  // Pass 2, the same batches in the same order. When the next one was kept
  // in pass 1, skip() it; else batch() its events, annotated as in pass 1.
  bool next_is_kept() const { return batches_[next_].kept; }
  // Pass 2 may meet only the batches pass 1 indexed (a file rewritten
  // between the passes must not index past them).
  bool has_next() const { return next_ < batches_.size(); }
  template <typename Visitor>
  void skip(Visitor& visitor);
  template <typename Visitor>
  void batch(std::vector<HeapOp> ops, Visitor& visitor);
  template <typename Visitor>
  void finish(Visitor& visitor);

  size_t most_pending() const { return most_pending_; }  // events held at once, for tests

 private:
  struct Batch {
    uint32_t experiment;
    uint64_t earliest;
    bool kept = false;
    bool seen = false;
    std::vector<HeapOp> ops;  // while pending
    size_t cursor = 0;
  };
  struct Key {
    uint32_t experiment;
    uint64_t time;
    uint32_t batch;
    uint32_t index;
    bool operator<(const Key& o) const {
      if (experiment != o.experiment) return experiment < o.experiment;
      if (time != o.time) return time < o.time;
      if (batch != o.batch) return batch < o.batch;
      return index < o.index;
    }
    bool operator>(const Key& o) const { return o < *this; }
  };
  struct Head {
    Key key;
    uint32_t batch;
    bool operator>(const Head& o) const { return key > o.key; }
  };

  static void in_time_order(std::vector<HeapOp>& ops);
  Key key_of(uint32_t b) const;
  void start_pending(uint32_t b);
  template <typename Visitor>
  void release_before(const Key& frontier, Visitor& visitor);
  template <typename Visitor>
  void replay(uint32_t experiment, const HeapOp& op, Visitor& visitor);

  size_t keep_after_;
  struct Earliest;  // pass 1: the earliest stamps read so far, ranked
  Earliest* earliest_ = nullptr;
  std::vector<Batch> batches_;
  std::vector<uint32_t> order_;  // batch numbers by (experiment, earliest, number)
  size_t unseen_ = 0;            // first of order_ not seen yet
  uint32_t next_ = 0;            // pass 2: the next batch in file order
  uint32_t latest_experiment_ = 0;
  std::priority_queue<Head, std::vector<Head>, std::greater<Head>> heads_;
  size_t pending_ = 0, most_pending_ = 0;
  bool in_experiment_ = false;
  uint32_t experiment_ = 0;
  LiveSet live_;
};

template <typename Visitor>
void HeapSweep::skip(Visitor& visitor) {
  ++next_;
  (void)visitor;
}

template <typename Visitor>
void HeapSweep::batch(std::vector<HeapOp> ops, Visitor& visitor) {
  const uint32_t b = next_++;
  in_time_order(ops);
  batches_[b].ops = std::move(ops);
  batches_[b].seen = true;
  start_pending(b);
  while (unseen_ < order_.size() && batches_[order_[unseen_]].seen) ++unseen_;
  if (unseen_ < order_.size()) release_before(key_of(order_[unseen_]), visitor);
}

template <typename Visitor>
void HeapSweep::finish(Visitor& visitor) {
  release_before(Key{UINT32_MAX, UINT64_MAX, UINT32_MAX, UINT32_MAX}, visitor);
  if (in_experiment_) visitor.experiment_end(experiment_, live_);
  live_.clear();
  in_experiment_ = false;
}

template <typename Visitor>
void HeapSweep::release_before(const Key& frontier, Visitor& visitor) {
  while (!heads_.empty() && heads_.top().key < frontier) {
    const uint32_t b = heads_.top().batch;
    heads_.pop();
    Batch& batch = batches_[b];
    replay(batch.experiment, batch.ops[batch.cursor], visitor);
    --pending_;
    if (++batch.cursor < batch.ops.size()) {
      heads_.push({{batch.experiment, batch.ops[batch.cursor].time_ns, b, static_cast<uint32_t>(batch.cursor)}, b});
    } else {
      std::vector<HeapOp>().swap(batch.ops);
    }
  }
}

template <typename Visitor>
void HeapSweep::replay(uint32_t experiment, const HeapOp& op, Visitor& visitor) {
  if (!in_experiment_ || experiment != experiment_) {
    if (in_experiment_) visitor.experiment_end(experiment_, live_);
    live_.clear();
    in_experiment_ = true;
    experiment_ = experiment;
    if constexpr (requires { visitor.experiment_begin(experiment); }) visitor.experiment_begin(experiment);
  }
  const uint64_t key = op.address ^ (op.mapping ? (1ull << 63) : 0);
  if (op.allocation) {
    const auto [it, inserted] = live_.try_emplace(key, op);
    if (!inserted) {
      visitor.released(it->second, op);
      it->second = op;
    }
    visitor.allocated(op);
  } else if (const auto it = live_.find(key); it != live_.end()) {
    visitor.released(it->second, op);
    live_.erase(it);
  } else {
    visitor.unmatched(op);
  }
}

}  // namespace lumen::heap
