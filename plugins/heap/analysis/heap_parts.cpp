#include "heap_parts.h"

#include <string>

namespace lumen::heap {

void HeapPart::visit(void* opaque, uint16_t kind, const void* payload, uint16_t bytes, uint32_t) {
  auto* self = static_cast<HeapPart*>(opaque);
  if (self->failed_) return;
  std::string problem;
  if (!decode_heap_record(kind, payload, bytes, *self, problem)) {
    self->failed_ = true;
    self->host_.record_failed(self->context_, problem.c_str());
  }
}

void HeapPart::op(const HeapOp& op) {
  if (keep_ == Keep::kLatest) return latest_.add(op);
  // Only allocations count, and only where their time and thread are selected.
  if (!op.allocation || host_.selected(context_, op.time_ns, op.thread_id) == 0) return;
  const StackAt at{op.stack_id, host_.map_epoch(context_, op.time_ns)};
  if (!(at == last_)) {
    const auto [it, inserted] = sum_of_.try_emplace(at, sums_.size());
    if (inserted) sums_.push_back({op.stack_id, at.epoch, op.time_ns});
    last_ = at;
    last_sum_ = it->second;
  }
  sums_[last_sum_].count += 1;
  sums_[last_sum_].bytes += op.size;
}

}  // namespace lumen::heap
