#include "heap_data.h"

#include <lumen/record_format.h>

namespace lumen::heap {

bool HeapData::each_op(HeapVisitor& visitor, std::string& error) {
  visitor_ = &visitor;
  return read(Pass::kEach, error);
}

bool HeapData::sweep(HeapVisitor& visitor, std::string& error) {
  visitor_ = &visitor;
  if (!read(Pass::kIndex, error)) return false;
  sweep_.plan();
  if (!read(Pass::kSweep, error)) return false;
  if (sweep_.has_next()) {
    error = "the heap data changed while it was read";
    return false;
  }
  sweep_.finish(visitor);
  return true;
}

bool HeapData::live_at_end(HeapVisitor& visitor, std::string& error) {
  visitor_ = &visitor;
  latest_.clear();
  if (!read(Pass::kLatest, error)) return false;
  end_experiment();
  return true;
}

// The last experiment's end is the end of the records; the others' is the
// next one's start record.
void HeapData::end_experiment() {
  if (pass_ != Pass::kLatest || latest_.empty()) return;
  visitor_->experiment_end(experiment_, latest_.live());
  latest_.clear();
}

bool HeapData::read(Pass pass, std::string& error) {
  pass_ = pass;
  experiment_ = 0;
  started_ = false;
  experiment_has_ops_ = false;
  batch_.clear();
  host_.for_each_record(host_.context, visit, this);
  error = error_;
  return error_.empty();
}

void HeapData::visit(void* opaque, uint16_t kind, const void* payload, uint16_t bytes, uint32_t) {
  auto* self = static_cast<HeapData*>(opaque);
  if (!self->error_.empty()) return;
  self->batch_.clear();
  decode_heap_record(kind, payload, bytes, *self, self->error_);
}

void HeapData::start(const HeapStart& start) {
  // The first record of a process's file: what follows is that process.
  if (started_ && (experiment_has_ops_ || start_ns_[experiment_] != 0)) {
    end_experiment();
    ++experiment_;
  }
  started_ = true;
  experiment_has_ops_ = false;
  if (start_ns_.size() <= experiment_) start_ns_.resize(experiment_ + 1, 0);
  start_ns_[experiment_] = start.time_ns;
}

void HeapData::op(const HeapOp& op) {
  if (!started_) {
    started_ = true;
    if (start_ns_.size() <= experiment_) start_ns_.resize(experiment_ + 1, 0);
  }
  experiment_has_ops_ = true;
  if (pass_ != Pass::kLatest) {
    batch_.push_back(op);
    return;
  }
  // While the host reads this op's experiment: only allocations can be
  // live at the end, and only they need their row and selection.
  if (!op.allocation) return latest_.add(op);
  HeapOp annotated = op;
  annotated.selected = host_.selected(host_.context, op.time_ns, op.thread_id) != 0;
  annotated.group = group_at(op.stack_id, op.time_ns);
  latest_.add(annotated);
}

void HeapData::batch_end() {
  switch (pass_) {
    case Pass::kLatest:
      return;
    case Pass::kEach:
      annotate(batch_);
      for (const HeapOp& op : batch_) op.allocation ? visitor_->allocated(op) : visitor_->unmatched(op);
      break;
    case Pass::kIndex:
      if (sweep_.index_batch(experiment_, batch_)) {
        annotate(batch_);
        sweep_.keep(std::move(batch_));
      }
      break;
    case Pass::kSweep:
      if (!sweep_.has_next()) {
        error_ = "the heap data changed while it was read";
      } else if (sweep_.next_is_kept()) {
        sweep_.skip(*visitor_);
      } else {
        annotate(batch_);
        sweep_.batch(std::move(batch_), *visitor_);
      }
      break;
  }
  batch_.clear();
  batch_.reserve(kBatchBytes / 4);  // a batch's ops, about: moved-from vectors start empty
}

// Frames and the selection are settled while the host reads the op's experiment.
void HeapData::annotate(std::vector<HeapOp>& ops) {
  for (HeapOp& op : ops) {
    op.selected = host_.selected(host_.context, op.time_ns, op.thread_id) != 0;
    if (op.allocation) op.group = group_at(op.stack_id, op.time_ns);
  }
}

uint32_t HeapData::group_at(uint64_t stack_id, uint64_t time_ns) {
  const StackAt at{stack_id, host_.map_epoch(host_.context, time_ns), experiment_};
  if (at == last_at_) return last_group_;
  last_at_ = at;
  if (const auto it = group_of_stack_.find(at); it != group_of_stack_.end()) return last_group_ = it->second;
  std::vector<lumen_frame_name> frames(LUMEN_MAX_STACK_DEPTH);
  const size_t n = stack_id == LUMEN_NO_STACK
                       ? 0
                       : host_.stack_frames_at(host_.context, stack_id, time_ns, frames.data(), frames.size());
  StackGroup group;
  for (size_t i = 0; i < n; ++i) {
    group.key += std::string(frames[i].function) + '\t' + frames[i].load_object + '\n';
    group.frames.emplace_back(frames[i].function);
    group.frames.emplace_back(frames[i].load_object);
  }
  group.leaf = n > 0 ? frames[0].function : "<Unknown>";
  const auto [it, inserted] = group_by_key_.try_emplace(group.key, static_cast<uint32_t>(groups_.size()));
  if (inserted) groups_.push_back(std::move(group));
  group_of_stack_.emplace(at, it->second);
  return last_group_ = it->second;
}

}  // namespace lumen::heap
