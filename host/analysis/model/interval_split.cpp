#include "interval_split.h"

#include <algorithm>

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

}  // namespace

void register_split_metrics(const host::AnalysisHalf& half, const std::vector<size_t>& metric_index,
                            MetricRegistry& registry) {
  const lumen_interval_split* declared = half.descriptor->interval_split;
  const size_t own_metrics = metric_index.size();
  if (declared == nullptr || declared->inside_metric >= own_metrics || declared->outside_metric >= own_metrics) return;
  registry.set_split_of(metric_index[declared->inside_metric], declared->sampled_metric);
  registry.set_split_of(metric_index[declared->outside_metric], declared->sampled_metric);
}

IntervalSplits::IntervalSplits(const std::vector<std::unique_ptr<Experiment>>& experiments,
                               const MetricRegistry& registry)
    : by_experiment_(experiments.size()) {
  for (size_t e = 0; e < experiments.size(); ++e) {
    for (const DataFile& file : experiments[e]->data_files()) {
      const lumen_interval_split* declared = file.half->descriptor->interval_split;
      if (declared == nullptr) continue;
      const size_t own_metrics = file.metric_index.size();
      const auto sampled = registry.find(declared->sampled_metric);
      if (!sampled || declared->duration_metric >= own_metrics || declared->inside_metric >= own_metrics ||
          declared->outside_metric >= own_metrics)
        continue;  // nothing samples that metric here, or a declaration out of range
      Split split{*sampled, file.metric_index[declared->inside_metric], file.metric_index[declared->outside_metric], {}};
      experiments[e]->for_each_event_in(file, [&](const DataFile&, const lumen_event& event) {
        const uint64_t duration = static_cast<uint64_t>(std::max<int64_t>(event.values[declared->duration_metric], 0));
        split.by_thread[event.thread_id].emplace_back(event.time_ns - std::min(duration, event.time_ns), event.time_ns);
      });
      for (auto& [thread, intervals] : split.by_thread) merge(intervals);
      by_experiment_[e].push_back(std::move(split));
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
    row[inside ? split.inside : split.outside] += value;
  }
}

}  // namespace lumen::analysis
