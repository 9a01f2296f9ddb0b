#include "heap_data.h"

#include <lumen/record_format.h>

namespace lumen::heap {

namespace {
// Room for a batch's ops, reserved ahead: about what a batch holds.
constexpr size_t kOpsPerBatchGuess = 1024;
}  // namespace

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

bool HeapData::read_parts(HeapPart::Keep keep, std::vector<std::unique_ptr<HeapPart>>& parts, std::string& error) {
  struct Begin {
    const lumen_view_host* host;
    HeapPart::Keep keep;
    std::vector<std::unique_ptr<HeapPart>>* parts;
  } begin{&host_, keep, &parts};
  host_.for_each_record_in_parts(
      host_.context,
      [](void* arg, const lumen_record_part* part) -> void* {
        auto* b = static_cast<Begin*>(arg);
        b->parts->push_back(std::make_unique<HeapPart>(*b->host, *part, b->keep));
        return b->parts->back().get();
      },
      HeapPart::visit, &begin);
  for (const auto& part : parts)
    if (part->failed()) {
      error = "a heap record could not be read";  // er_print reports the record's own error, with its place
      return false;
    }
  return true;
}

bool HeapData::live_at_end(const std::function<void(const HeapOp&)>& live, std::string& error) {
  std::vector<std::unique_ptr<HeapPart>> parts;
  if (!read_parts(HeapPart::Keep::kLatest, parts, error)) return false;
  // Each experiment's parts are consecutive: merged into its first.
  for (size_t first = 0, end; first < parts.size(); first = end) {
    for (end = first + 1; end < parts.size() && parts[end]->experiment() == parts[first]->experiment(); ++end) {
      parts[first]->latest().merge(parts[end]->latest());
      parts[end].reset();
    }
    HeapPart& merged = *parts[first];
    for (HeapOp op : merged.latest().live_in_time_order()) {
      op.selected = host_.selected(merged.context(), op.time_ns, op.thread_id) != 0;
      op.group = group_at(merged.context(), static_cast<uint32_t>(merged.experiment()), op.stack_id, op.time_ns);
      live(op);
    }
    parts[first].reset();
  }
  return true;
}

bool HeapData::allocations_by_stack(const std::function<void(uint32_t group, uint64_t count, uint64_t bytes)>& add,
                                    std::string& error) {
  std::vector<std::unique_ptr<HeapPart>> parts;
  if (!read_parts(HeapPart::Keep::kAllocations, parts, error)) return false;
  struct Merged {
    HeapPart::StackSum sum;
    const HeapPart* part;  // its first: the experiment's context
  };
  std::vector<Merged> merged;
  std::unordered_map<StackAt, size_t, StackAtHash> index;
  for (const auto& part : parts)
    for (const HeapPart::StackSum& sum : part->sums()) {
      const StackAt at{sum.stack_id, sum.epoch, static_cast<uint32_t>(part->experiment())};
      const auto [it, inserted] = index.try_emplace(at, merged.size());
      if (inserted) {
        merged.push_back({sum, part.get()});
      } else {
        merged[it->second].sum.count += sum.count;
        merged[it->second].sum.bytes += sum.bytes;
      }
    }
  for (const Merged& m : merged)
    add(group_at(m.part->context(), static_cast<uint32_t>(m.part->experiment()), m.sum.stack_id,
                 m.sum.first_time_ns),
        m.sum.count, m.sum.bytes);
  return true;
}

bool HeapData::read(Pass pass, std::string& error) {
  pass_ = pass;
  experiment_ = 0;
  started_ = false;
  experiment_has_ops_ = false;
  thread_highest_.clear();
  batch_.clear();
  host_.for_each_record(host_.context, visit, this);
  error = error_;
  return error_.empty();
}

void HeapData::visit(void* opaque, uint16_t kind, const void* payload, uint16_t bytes, uint32_t) {
  auto* self = static_cast<HeapData*>(opaque);
  if (!self->error_.empty()) return;
  self->batch_.clear();
  if (!decode_heap_record(kind, payload, bytes, *self, self->error_))
    self->host_.record_failed(self->host_.context, self->error_.c_str());
}

void HeapData::start(const HeapStart& start) {
  // The first record of a process's file: what follows is that process.
  if (started_ && (experiment_has_ops_ || start_ns_[experiment_] != 0)) ++experiment_;
  started_ = true;
  experiment_has_ops_ = false;
  thread_highest_.clear();
  if (start_ns_.size() <= experiment_) start_ns_.resize(experiment_ + 1, 0);
  start_ns_[experiment_] = start.time_ns;
}

void HeapData::op(const HeapOp& op) {
  if (!started_) {
    started_ = true;
    if (start_ns_.size() <= experiment_) start_ns_.resize(experiment_ + 1, 0);
  }
  experiment_has_ops_ = true;
  batch_.push_back(op);
  // A thread's events are in its order in the file: what its latest saw.
  uint64_t& latest = thread_highest_[op.thread_id];
  if (op.highest > latest) latest = op.highest;
  batch_.back().highest = latest;
  if (pass_ == Pass::kIndex) {
    if (highest_.size() <= experiment_) highest_.resize(experiment_ + 1, 0);
    if (latest > highest_[experiment_]) highest_[experiment_] = latest;
  }
}

void HeapData::batch_end() {
  switch (pass_) {
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
  batch_.reserve(kOpsPerBatchGuess);  // moved-from vectors start empty
}

// Frames and the selection are settled while the host reads the op's experiment.
void HeapData::annotate(std::vector<HeapOp>& ops) {
  for (HeapOp& op : ops) {
    op.selected = host_.selected(host_.context, op.time_ns, op.thread_id) != 0;
    if (op.allocation) op.group = group_at(host_.context, experiment_, op.stack_id, op.time_ns);
  }
}

uint32_t HeapData::group_at(void* context, uint32_t experiment, uint64_t stack_id, uint64_t time_ns) {
  const StackAt at{stack_id, host_.map_epoch(context, time_ns), experiment};
  if (at == last_at_) return last_group_;
  last_at_ = at;
  if (const auto it = group_of_stack_.find(at); it != group_of_stack_.end()) return last_group_ = it->second;
  std::vector<lumen_frame_name> frames(LUMEN_MAX_STACK_DEPTH);
  const size_t n = stack_id == LUMEN_NO_STACK
                       ? 0
                       : host_.stack_frames_at(context, stack_id, time_ns, frames.data(), frames.size());
  const uint32_t group = group_of_frames(frames.data(), n);
  group_of_stack_.emplace(at, group);
  return last_group_ = group;
}

uint32_t HeapData::group_of_frames(const lumen_frame_name* frames, size_t n) {
  StackGroup group;
  for (size_t i = 0; i < n; ++i) {
    group.key += std::string(frames[i].function) + '\t' + frames[i].load_object + '\n';
    group.frames.emplace_back(frames[i].function);
    group.frames.emplace_back(frames[i].load_object);
  }
  group.leaf = n > 0 ? frames[0].function : "<Unknown>";
  const auto [it, inserted] = group_by_key_.try_emplace(group.key, static_cast<uint32_t>(groups_.size()));
  if (inserted) groups_.push_back(std::move(group));
  return it->second;
}

bool HeapData::sums_from_session(const char* count_metric, const char* bytes_metric,
                                 const std::function<void(uint32_t group, uint64_t count, uint64_t bytes)>& add) {
  if (!LUMEN_PROVIDES(&host_, stack_sums)) return false;
  const char* const metrics[] = {count_metric, bytes_metric};
  struct Visit {
    HeapData* data;
    const std::function<void(uint32_t, uint64_t, uint64_t)>* add;
  } visit{this, &add};
  return host_.stack_sums(
             host_.context, metrics, 2,
             [](void* arg, const lumen_frame_name* frames, size_t count, const double* sums) {
               auto* v = static_cast<Visit*>(arg);
               (*v->add)(v->data->group_of_frames(frames, count), static_cast<uint64_t>(sums[0]),
                         static_cast<uint64_t>(sums[1]));
             },
             &visit) != 0;
}

}  // namespace lumen::heap
