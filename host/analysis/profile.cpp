#include "profile.h"

#include <lumen/record_format.h>

#include <unordered_map>

namespace lumen::analysis {

namespace {

struct StackKey {
  uint32_t experiment;
  uint32_t epoch;
  uint64_t stack_id;
  bool operator==(const StackKey&) const = default;
};

struct StackKeyHash {
  size_t operator()(const StackKey& k) const {
    return std::hash<uint64_t>()(k.stack_id * 0x9e3779b97f4a7c15ull ^ (uint64_t{k.experiment} << 32 | k.epoch));
  }
};

}  // namespace

Profile::Profile(const std::vector<std::unique_ptr<Experiment>>& experiments, const MetricRegistry& registry,
                 ProgramStructure& structure, const EventFilter& filter)
    : functions_(registry.size(), kTotalFunction), objects_(registry.size(), kTotalObjectNode) {
  const size_t metric_count = registry.size();
  std::unordered_map<StackKey, size_t, StackKeyHash> rows;
  std::vector<StackKey> keys;
  std::vector<int64_t> values;
  for (size_t e = 0; e < experiments.size(); ++e) {
    const Experiment& experiment = *experiments[e];
    experiment.for_each_event([&](const DataFile& file, const lumen_event& event) {
      if (filter && !filter(e, event)) return;
      ++events_;
      const StackKey key{static_cast<uint32_t>(e), experiment.loadobjects().epoch_at(event.time_ns), event.stack_id};
      auto [it, inserted] = rows.try_emplace(key, keys.size());
      if (inserted) {
        keys.push_back(key);
        values.resize(values.size() + metric_count, 0);
      }
      int64_t* row = values.data() + it->second * metric_count;
      for (size_t m = 0; m < file.half->descriptor->metric_count; ++m) row[file.metric_base + m] += event.values[m];
    });
  }
  unique_stacks_ = keys.size();
  std::vector<NodeId> function_frames, object_frames;
  for (size_t r = 0; r < keys.size(); ++r) {
    const StackKey& key = keys[r];
    const Experiment& experiment = *experiments[key.experiment];
    const auto pcs = experiment.stacks().pcs(key.stack_id);
    const uint32_t flags = experiment.stacks().flags(key.stack_id);
    function_frames.clear();
    object_frames.clear();
    for (size_t i = 0; i < pcs.size(); ++i) {
      const bool is_return = i > 0 || (flags & LUMEN_STACK_LEAF_IS_RETURN) != 0;
      function_frames.push_back(structure.function_at(experiment.loadobjects(), key.epoch, pcs[i], is_return));
    }
    if (is_artificial_stack(key.stack_id))
      function_frames.push_back(structure.artificial_function(experiment.artificial_function(key.stack_id)));
    else if (pcs.empty()) function_frames.push_back(kUnknownFunction);
    if ((flags & LUMEN_STACK_TRUNCATED) != 0) function_frames.push_back(kTruncatedFunction);
    // Consecutive frames in one object are one visit to it.
    for (const FunctionId f : function_frames) {
      const ObjectId object = structure.function(f).object;
      if (object_frames.empty() || object_frames.back() != object) object_frames.push_back(object);
    }
    const std::span<const int64_t> row(values.data() + r * metric_count, metric_count);
    functions_.add_stack(function_frames, row);
    objects_.add_stack(object_frames, row);
  }
}

}  // namespace lumen::analysis
