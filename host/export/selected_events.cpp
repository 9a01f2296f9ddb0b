#include "selected_events.h"

#include <optional>
#include <unordered_map>

namespace lumen::exporting {

FileShape shape_of(const analysis::DataFile& file, const analysis::MetricRegistry& registry) {
  std::optional<size_t> duration;
  bool counts = false;
  for (size_t v = 0; v < file.metric_index.size(); ++v) {
    const analysis::MetricDef& metric = registry.metrics().at(file.metric_index[v]);
    if (!metric.split_of.empty()) continue;  // shares of another plugin's samples, zero in its own events
    if (metric.unit == LUMEN_UNIT_NANOSECONDS && !duration) duration = v;
    if (metric.unit == LUMEN_UNIT_COUNT) counts = true;
  }
  if (duration && counts) return {EventShape::Call, *duration};
  if (duration) return {EventShape::Sample, *duration};
  return {EventShape::Point, 0};
}

bool span_selected(const analysis::EventFilter& filter, size_t experiment, const lumen_span& span) {
  if (!filter) return true;
  const lumen_event at_end{span.end_ns, span.stack_id, span.thread_id, -1, nullptr};
  return filter(experiment, at_end);
}

void for_each_selected_event(const ExportInput& input, const SelectedEventVisitor& visit,
                             const SelectedTimeline* timeline) {
  // (experiment, epoch, stack id) -> the profile's unique stack: an event
  // whose stack the profile dropped (a function filter) is not exported.
  struct Key {
    uint32_t experiment, epoch;
    uint64_t stack_id;
    uint32_t chain;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      return std::hash<uint64_t>()(k.stack_id * 0x9e3779b97f4a7c15ull ^ (uint64_t{k.experiment} << 32 | k.epoch) ^
                                   uint64_t{k.chain} << 20);
    }
  };
  std::unordered_map<Key, uint32_t, KeyHash> stack_of;
  const auto& stacks = input.profile.stacks();
  for (uint32_t s = 0; s < stacks.size(); ++s)
    stack_of.emplace(Key{stacks[s].experiment, stacks[s].epoch, stacks[s].stack_id, stacks[s].chain}, s);
  for (size_t e = 0; e < input.experiments.size(); ++e) {
    const analysis::Experiment& experiment = *input.experiments[e];
    analysis::Experiment::TimelineVisitor drawn;
    if (timeline != nullptr && timeline->span)
      drawn.span = [&](const analysis::DataFile& file, const lumen_span& span) {
        if (span_selected(input.event_filter, e, span)) timeline->span(e, file, span);
      };
    if (timeline != nullptr && timeline->level)
      drawn.level = [&](const analysis::DataFile& file, const char* name, lumen_metric_unit unit, uint64_t time_ns,
                        int64_t value) { timeline->level(e, file, name, unit, time_ns, value); };
    auto selected = [&](const analysis::DataFile& file, const lumen_event& event) {
      if (input.event_filter && !input.event_filter(e, event)) return;
      const auto it = stack_of.find(
          Key{static_cast<uint32_t>(e), experiment.loadobjects().epoch_at(event.time_ns), event.stack_id,
              input.profile.chain_at(e, event.thread_id, event.time_ns)});
      if (it == stack_of.end()) return;
      visit(e, file, event, it->second);
    };
    if (timeline != nullptr || (!input.window.from_s && !input.window.to_s)) {
      experiment.for_each_event(selected, timeline != nullptr ? &drawn : nullptr);
      continue;
    }
    // A stretch of time: only the blocks that hold it, where a file's blocks can be read alone.
    const auto [from_ns, to_ns] = input.window.on_clock(experiment.start_ns());
    for (const analysis::DataFile& file : experiment.data_files())
      if (!experiment.for_each_event_near(file, from_ns, to_ns, selected)) experiment.for_each_event_in(file, selected);
  }
}

}  // namespace lumen::exporting
