#include "stack_profile.h"

#include <lumen/record_format.h>

#include <unordered_map>

#include "interval_split.h"

namespace lumen::analysis {

namespace {

struct StackKey {
  uint32_t experiment;
  uint32_t epoch;
  uint64_t stack_id;
  uint32_t chain;  // the stitches covering the event (view_mode.h), 0: none
  bool operator==(const StackKey&) const = default;
};

struct StackKeyHash {
  size_t operator()(const StackKey& k) const {
    return std::hash<uint64_t>()(k.stack_id * 0x9e3779b97f4a7c15ull ^ (uint64_t{k.experiment} << 32 | k.epoch) ^
                                 (uint64_t{k.chain} * 0xff51afd7ed558ccdull));
  }
};

}  // namespace

StackProfile::StackProfile(const std::vector<std::unique_ptr<Experiment>>& experiments, const MetricRegistry& registry,
                 ProgramStructure& structure, const EventFilter& filter, const StackFilter& stack_filter,
                 bool inline_frames, ViewMode mode, const FrameRewrite& rewrite, const ProfileObserver* observer)
    : metric_count_(registry.size()),
      shaper_(std::make_unique<StackShaper>(experiments, structure, mode, inline_frames)),
      functions_(registry.size(), kTotalFunction),
      objects_(registry.size(), kTotalObjectNode) {
  const size_t metric_count = metric_count_;
  std::unordered_map<StackKey, size_t, StackKeyHash> rows;
  std::vector<StackKey> keys;
  std::vector<int64_t> values;
  // Per-thread rows are kept apart from the stack rows: a stack filter may
  // drop stacks later, so threads are summed per (stack row, thread) and
  // folded in once the stack's fate is known.
  std::unordered_map<uint64_t, std::pair<uint64_t, std::vector<int64_t>>> thread_rows;  // row<<32|thread
  uint64_t last_thread_key = UINT64_MAX;
  std::pair<uint64_t, std::vector<int64_t>>* last_thread_row = nullptr;
  const IntervalSplits splits(experiments, registry);
  StackShaper& shaper = *shaper_;
  for (size_t e = 0; e < experiments.size(); ++e) {
    const Experiment& experiment = *experiments[e];
    Experiment::TimelineVisitor timeline;
    if (observer != nullptr && observer->span)
      timeline.span = [&](const DataFile& file, const lumen_span& span) { observer->span(e, file, span); };
    if (observer != nullptr && observer->level)
      timeline.level = [&](const DataFile& file, const char* name, lumen_metric_unit unit, uint64_t time_ns,
                           int64_t value) { observer->level(e, file, name, unit, time_ns, value); };
    experiment.for_each_event([&](const DataFile& file, const lumen_event& event) {
      ++events_read_;
      if (event.cpu >= 0) ++events_with_cpu_;
      if (filter && !filter(e, event)) return;
      const StackKey key{static_cast<uint32_t>(e), experiment.loadobjects().epoch_at(event.time_ns), event.stack_id,
                         shaper.chain_at(e, event.thread_id, event.time_ns)};
      auto [it, inserted] = rows.try_emplace(key, keys.size());
      if (inserted) {
        keys.push_back(key);
        values.resize(values.size() + metric_count, 0);
      }
      int64_t* row = values.data() + it->second * metric_count;
      const size_t plugin_metrics = file.metric_index.size();
      for (size_t m = 0; m < plugin_metrics; ++m) row[file.metric_index[m]] += event.values[m];
      splits.add_shares(e, file, event, row);
      // Blocks are per thread, so consecutive events mostly share a thread.
      const uint64_t thread_key = uint64_t{it->second} << 32 | event.thread_id;
      if (thread_key != last_thread_key) {
        auto& slot = thread_rows[thread_key];
        if (slot.second.empty()) slot.second.assign(metric_count, 0);
        last_thread_key = thread_key;
        last_thread_row = &slot;
      }
      ++last_thread_row->first;
      for (size_t m = 0; m < plugin_metrics; ++m) last_thread_row->second[file.metric_index[m]] += event.values[m];
      splits.add_shares(e, file, event, last_thread_row->second.data());
      if (observer != nullptr && observer->event) observer->event(e, file, event, static_cast<uint32_t>(it->second));
    }, observer != nullptr ? &timeline : nullptr);
  }
  std::vector<bool> kept(keys.size(), true);
  std::vector<uint32_t> stack_of_row(keys.size(), kDroppedRow);
  std::vector<NodeId> function_frames, object_frames;
  for (size_t r = 0; r < keys.size(); ++r) {
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
    const std::span<const int64_t> row(values.data() + r * metric_count, metric_count);
    stack_of_row[r] = static_cast<uint32_t>(stacks_.size());
    functions_.add_stack(function_frames, row);
    objects_.add_stack(object_frames, row);
    stacks_.push_back({key.experiment, key.epoch, key.stack_id, static_cast<uint32_t>(frames_.size()),
                       static_cast<uint32_t>(function_frames.size()), key.chain});
    frames_.insert(frames_.end(), function_frames.begin(), function_frames.end());
    values_.insert(values_.end(), row.begin(), row.end());
  }
  for (const auto& [thread_key, share] : thread_rows) {
    const size_t r = static_cast<size_t>(thread_key >> 32);
    if (!kept[r]) continue;
    ThreadTotals& totals = threads_[{keys[r].experiment, static_cast<uint32_t>(thread_key & 0xffffffffu)}];
    if (totals.values.empty()) totals.values.assign(metric_count, 0);
    totals.events += share.first;
    events_ += share.first;
    for (size_t m = 0; m < metric_count; ++m) totals.values[m] += share.second[m];
    stack_threads_.push_back({stack_of_row[r], static_cast<uint32_t>(thread_key & 0xffffffffu), share.first});
    stack_thread_values_.insert(stack_thread_values_.end(), share.second.begin(), share.second.end());
  }
  if (observer != nullptr) stack_of_row_ = std::move(stack_of_row);
}

}  // namespace lumen::analysis
