#include "interval_split.h"
#include "metric_sum.h"

#include <algorithm>
#include <cstring>
#include <span>

namespace lumen::analysis {

namespace {

// Sorts the intervals and merges those that overlap, so that one binary
// search answers whether a time is covered.
void merge(std::vector<std::pair<uint64_t, uint64_t>>& intervals) {
  std::sort(intervals.begin(), intervals.end());
  size_t kept = 0;
  for (const auto& interval : intervals) {
    if (kept > 0 && interval.first <= intervals[kept - 1].second)
      intervals[kept - 1].second = std::max(intervals[kept - 1].second, interval.second);
    else
      intervals[kept++] = interval;
  }
  intervals.resize(kept);
}

// The splits a plugin declares.
std::span<const lumen_interval_split> declared_splits(const lumen_analysis_descriptor& descriptor) {
  if (descriptor.interval_splits == nullptr) return {};
  return {descriptor.interval_splits, descriptor.interval_split_count};
}

}  // namespace

void register_split_metrics(const host::AnalysisHalf& half, const std::vector<size_t>& metric_index,
                            MetricRegistry& registry) {
  const size_t own_metrics = metric_index.size();
  for (const lumen_interval_split& declared : declared_splits(*half.descriptor)) {
    for (const size_t metric : {declared.inside_metric, declared.outside_metric})
      if (metric < own_metrics && registry.metrics().at(metric_index[metric]).split_of.empty())
        registry.set_split_of(metric_index[metric], declared.sampled_metric);
  }
}

IntervalSplits::IntervalSplits(const std::vector<std::unique_ptr<Experiment>>& experiments,
                               const MetricRegistry& registry)
    : by_experiment_(experiments.size()) {
  for (size_t e = 0; e < experiments.size(); ++e) {
    for (const DataFile& file : experiments[e]->data_files()) {
      const size_t own_metrics = file.metric_index.size();
      const auto own = [&](size_t metric) {
        return metric == LUMEN_NO_METRIC ? kNone : metric < own_metrics ? file.metric_index[metric] : kBad;
      };
      std::vector<Split> splits;
      for (const lumen_interval_split& declared : declared_splits(*file.half->descriptor)) {
        const auto sampled = registry.find(declared.sampled_metric);
        if (!sampled || declared.duration_metric >= own_metrics || own(declared.inside_metric) >= kBad ||
            own(declared.outside_metric) == kBad)
          continue;  // nothing samples that metric here, or a declaration out of range
        splits.push_back({*sampled, own(declared.inside_metric), own(declared.outside_metric),
                          declared.duration_metric, declared.span_name, {}});
      }
      if (splits.empty()) continue;
      // The intervals of every split from one pass over the file.
      Experiment::TimelineVisitor spans;
      spans.span = [&](const DataFile&, const lumen_span& span) {
        for (Split& split : splits)
          if (split.span_name != nullptr && span.name != nullptr && std::strcmp(split.span_name, span.name) == 0 &&
              span.end_ns >= span.begin_ns)
            split.by_thread[span.thread_id].emplace_back(span.begin_ns, span.end_ns);
      };
      const bool with_spans =
          std::any_of(splits.begin(), splits.end(), [](const Split& split) { return split.span_name != nullptr; });
      experiments[e]->for_each_event_in(
          file,
          [&](const DataFile&, const lumen_event& event) {
            for (Split& split : splits) {
              const int64_t value = event.values[split.duration_metric];
              if (value <= 0) continue;
              const uint64_t duration = std::min(static_cast<uint64_t>(value), event.time_ns);
              split.by_thread[event.thread_id].emplace_back(event.time_ns - duration, event.time_ns);
            }
          },
          nullptr, with_spans ? &spans : nullptr);
      for (Split& split : splits) {
        for (auto& [thread, intervals] : split.by_thread) merge(intervals);
        by_experiment_[e].push_back(std::move(split));
      }
    }
  }
}

bool IntervalSplits::covers(const Intervals& intervals, uint64_t time_ns) {
  // The last interval beginning at or before the time.
  const auto after = std::upper_bound(intervals.begin(), intervals.end(), std::make_pair(time_ns, UINT64_MAX));
  return after != intervals.begin() && std::prev(after)->second >= time_ns;
}

void IntervalSplits::add_shares(size_t experiment, const DataFile& file, const lumen_event& event,
                                int64_t* row) const {
  for (const Split& split : by_experiment_[experiment]) {
    const auto position = std::find(file.metric_index.begin(), file.metric_index.end(), split.sampled);
    if (position == file.metric_index.end()) continue;  // not an event of the sampled metric's plugin
    const int64_t value = event.values[position - file.metric_index.begin()];
    if (value == 0) continue;
    const auto thread = split.by_thread.find(event.thread_id);
    const bool inside = thread != split.by_thread.end() && covers(thread->second, event.time_ns);
    const size_t metric = inside ? split.inside : split.outside;
    if (metric != kNone) add_saturating(row[metric], value);
  }
}

}  // namespace lumen::analysis
