#include "stack_profile.h"

#include <lumen/record_format.h>

#include "interval_split.h"
#include "progress.h"
#include "sampled_parts.h"
#include "stack_aggregate.h"
#include "metric_sum.h"

namespace lumen::analysis {

StackProfile::StackProfile(const std::vector<std::unique_ptr<Experiment>>& experiments, const MetricRegistry& registry,
                 ProgramStructure& structure, const EventFilter& filter, const StackFilter& stack_filter,
                 bool inline_frames, ViewMode mode, const FrameRewrite& rewrite, const ProfileObserver* observer,
                 const TimeWindow& window)
    : metric_count_(registry.size()),
      shaper_(std::make_shared<StackShaper>(experiments, structure, mode, inline_frames)),
      functions_(registry.size(), kTotalFunction),
      objects_(registry.size(), kTotalObjectNode) {
  const IntervalSplits splits(experiments, registry);
  const SampledParts sampled_parts(experiments, registry);
  const StackAggregate aggregate =
      aggregate_events(experiments, metric_count_, filter, splits, &sampled_parts, *shaper_, observer, nullptr, window);
  attribute(aggregate, structure, stack_filter, rewrite, observer != nullptr);
}

StackProfile::StackProfile(const StackAggregate& aggregate, std::shared_ptr<StackShaper> shaper,
                           const MetricRegistry& registry, ProgramStructure& structure,
                           const StackFilter& stack_filter, const FrameRewrite& rewrite)
    : metric_count_(registry.size()),
      shaper_(std::move(shaper)),
      functions_(registry.size(), kTotalFunction),
      objects_(registry.size(), kTotalObjectNode) {
  attribute(aggregate, structure, stack_filter, rewrite, false);
}

void StackProfile::attribute(const StackAggregate& aggregate, ProgramStructure& structure,
                             const StackFilter& stack_filter, const FrameRewrite& rewrite, bool observed) {
  const size_t metric_count = metric_count_;
  StackShaper& shaper = *shaper_;
  events_read_ = aggregate.events_read;
  events_with_cpu_ = aggregate.events_with_cpu;
  const std::vector<StackKey>& keys = aggregate.keys();
  std::vector<bool> kept(keys.size(), true);
  std::vector<uint32_t> stack_of_row(keys.size(), kDroppedRow);
  std::vector<NodeId> function_frames, object_frames;
  // Each distinct PC is symbolized at its first stack: millions of them
  // (a long run, a crafted file) take seconds.
  Progress progress("symbolizing stacks");
  for (size_t r = 0; r < keys.size(); ++r) {
    if (r % 4096 == 0) progress.update(r, keys.size());
    const StackKey& key = keys[r];
    shaper.frames(key.experiment, key.epoch, key.stack_id, key.chain, function_frames);
    object_frames.clear();
    if (stack_filter && !stack_filter(function_frames)) {
      kept[r] = false;
      continue;
    }
    if (rewrite) rewrite(function_frames);
    // Consecutive frames in one object are one visit to it.
    for (const FunctionId f : function_frames) {
      const ObjectId object = structure.function(f).object;
      if (object_frames.empty() || object_frames.back() != object) object_frames.push_back(object);
    }
    const std::span<const int64_t> row(aggregate.row(r), metric_count);
    stack_of_row[r] = static_cast<uint32_t>(stacks_.size());
    functions_.add_stack(function_frames, row);
    objects_.add_stack(object_frames, row);
    stacks_.push_back({key.experiment, key.epoch, key.stack_id, static_cast<uint32_t>(frames_.size()),
                       static_cast<uint32_t>(function_frames.size()), key.chain});
    frames_.insert(frames_.end(), function_frames.begin(), function_frames.end());
    values_.insert(values_.end(), row.begin(), row.end());
  }
  for (size_t s = 0; s < aggregate.thread_shares(); ++s) {
    const uint64_t thread_key = aggregate.share_key(s);
    const size_t r = static_cast<size_t>(thread_key >> 32);
    if (!kept[r]) continue;
    const uint64_t events = aggregate.share_events(s);
    const std::span<const int64_t> share(aggregate.share_values(s), metric_count);
    ThreadTotals& totals = threads_[{keys[r].experiment, static_cast<uint32_t>(thread_key & 0xffffffffu)}];
    if (totals.values.empty()) totals.values.assign(metric_count, 0);
    totals.events += events;
    events_ += events;
    add_values(totals.values.data(), share.data(), metric_count);
    stack_threads_.push_back({stack_of_row[r], static_cast<uint32_t>(thread_key & 0xffffffffu), events});
    stack_thread_values_.insert(stack_thread_values_.end(), share.begin(), share.end());
  }
  if (observed) {
    stack_of_entry_.resize(aggregate.thread_shares());
    for (size_t s = 0; s < aggregate.thread_shares(); ++s)
      stack_of_entry_[s] = stack_of_row[static_cast<size_t>(aggregate.share_key(s) >> 32)];
  }
}

}  // namespace lumen::analysis
