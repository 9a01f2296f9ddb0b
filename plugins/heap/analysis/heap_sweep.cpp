#include "heap_sweep.h"

#include <algorithm>

namespace lumen::heap {

void HeapSweep::in_time_order(std::vector<HeapOp>& ops) {
  // One thread's events are in time order but for a signal handler's
  // allocation stamped inside another's recording: rare, so check first.
  const auto earlier = [](const HeapOp& a, const HeapOp& b) { return a.time_ns < b.time_ns; };
  if (!std::is_sorted(ops.begin(), ops.end(), earlier)) std::stable_sort(ops.begin(), ops.end(), earlier);
}

bool HeapSweep::index_batch(uint32_t experiment, const std::vector<HeapOp>& ops) {
  Batch batch;
  batch.experiment = experiment;
  batch.earliest = UINT64_MAX;
  for (const HeapOp& op : ops) batch.earliest = std::min(batch.earliest, op.time_ns);
  if (experiment != latest_experiment_) {
    latest_experiment_ = experiment;
    latest_ = 0;
  }
  if (!ops.empty()) {
    batch.kept = batch.earliest + keep_lag_ns_ < latest_;
    latest_ = std::max(latest_, batch.earliest);
  }
  batches_.push_back(std::move(batch));
  return batches_.back().kept;
}

void HeapSweep::keep(std::vector<HeapOp> ops) {
  in_time_order(ops);
  batches_.back().ops = std::move(ops);
}

HeapSweep::Key HeapSweep::key_of(uint32_t b) const {
  return {batches_[b].experiment, batches_[b].earliest, b, 0};
}

void HeapSweep::plan() {
  order_.resize(batches_.size());
  for (uint32_t b = 0; b < batches_.size(); ++b) order_[b] = b;
  std::sort(order_.begin(), order_.end(), [this](uint32_t a, uint32_t b) { return key_of(a) < key_of(b); });
  for (uint32_t b = 0; b < batches_.size(); ++b) {
    if (!batches_[b].kept) continue;
    batches_[b].seen = true;
    start_pending(b);
  }
  while (unseen_ < order_.size() && batches_[order_[unseen_]].seen) ++unseen_;
  next_ = 0;
}

void HeapSweep::start_pending(uint32_t b) {
  Batch& batch = batches_[b];
  batch.cursor = 0;
  if (batch.ops.empty()) return;
  heads_.push({{batch.experiment, batch.ops[0].time_ns, b, 0}, b});
  pending_ += batch.ops.size();
  most_pending_ = std::max(most_pending_, pending_);
}

}  // namespace lumen::heap
