#include "heap_sweep.h"

#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>

#include <algorithm>
#include <utility>

namespace lumen::heap {

void HeapSweep::in_time_order(std::vector<HeapOp>& ops) {
  // One thread's events are in time order but for a signal handler's
  // allocation stamped inside another's recording: rare, so check first.
  const auto earlier = [](const HeapOp& a, const HeapOp& b) { return a.time_ns < b.time_ns; };
  if (!std::is_sorted(ops.begin(), ops.end(), earlier)) std::stable_sort(ops.begin(), ops.end(), earlier);
}

// An order-statistics tree (libstdc++'s policy-based one): how many of the
// stamps read so far are later than a given one, in log time.
struct HeapSweep::Earliest {
  __gnu_pbds::tree<std::pair<uint64_t, uint32_t>, __gnu_pbds::null_type, std::less<>, __gnu_pbds::rb_tree_tag,
                   __gnu_pbds::tree_order_statistics_node_update>
      stamps;
};

HeapSweep::~HeapSweep() { delete earliest_; }

bool HeapSweep::index_batch(uint32_t experiment, const std::vector<HeapOp>& ops) {
  Batch batch;
  batch.experiment = experiment;
  batch.earliest = UINT64_MAX;
  for (const HeapOp& op : ops) batch.earliest = std::min(batch.earliest, op.time_ns);
  if (earliest_ == nullptr) earliest_ = new Earliest;
  if (experiment != latest_experiment_) {
    latest_experiment_ = experiment;
    earliest_->stamps.clear();
  }
  if (!ops.empty()) {
    const std::pair<uint64_t, uint32_t> key{batch.earliest, static_cast<uint32_t>(batches_.size())};
    const size_t later = earliest_->stamps.size() - earliest_->stamps.order_of_key(key);
    batch.kept = later > keep_after_;
    earliest_->stamps.insert(key);
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
  delete earliest_;
  earliest_ = nullptr;
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
