#include "event_cells.h"

#include <algorithm>

#include "interval_split.h"

namespace lumen::analysis {

namespace {

// A timeline wants at most this many bins over the longest experiment; a
// bin is whole milliseconds (a brush on a timeline is coarser), so that a
// long run of samples is not a cell per event.
constexpr uint64_t kBinsPerRun = 256;
constexpr uint64_t kNarrowestBinNs = 1'000'000;

CellBinning binning_for(const std::vector<std::unique_ptr<Experiment>>& experiments) {
  uint64_t longest = 0;
  for (const auto& e : experiments)
    if (e->samples().end_ns() > e->start_ns()) longest = std::max(longest, e->samples().end_ns() - e->start_ns());
  // Whole milliseconds, so that a bin's bounds are round figures.
  const uint64_t widest = longest / kBinsPerRun + 1;
  return {std::max(kNarrowestBinNs, (widest + kNarrowestBinNs - 1) / kNarrowestBinNs * kNarrowestBinNs)};
}

}  // namespace

EventCells::EventCells(const std::vector<std::unique_ptr<Experiment>>& experiments, const MetricRegistry& registry,
                       const StackShaper& shaper)
    : experiments_(experiments),
      binning_(binning_for(experiments)),
      cells_(aggregate_events(experiments, registry.size(), {}, IntervalSplits(experiments, registry), nullptr, shaper,
                              nullptr, &binning_)) {
  cells_.forget_index();
}

bool EventCells::can_select(const std::vector<EventSelection>& selections) {
  return std::none_of(selections.begin(), selections.end(), [](const EventSelection& s) {
    return s.selects_cpus() || (s.expression && s.expression->uses_time());
  });
}

std::optional<StackAggregate> EventCells::select(const std::vector<EventSelection>& selections,
                                                 const EventFilter& only, const SampledParts& sampled_parts) const {
  StackAggregate selected(cells_.metric_count());
  selected.events_read = cells_.events_read;
  selected.events_with_cpu = cells_.events_with_cpu;
  if (!for_each_selected(selections, only, [&](size_t cell) { selected.add_cell(cells_, cell); })) return std::nullopt;
  sampled_parts.place(selected);
  selected.finish();
  return selected;
}

bool EventCells::for_each_selected(const std::vector<EventSelection>& selections, const EventFilter& only,
                                   const std::function<void(size_t cell)>& visit) const {
  if (!can_select(selections)) return false;
  // The time bounds (inclusive, in seconds since each experiment's start)
  // apart; the rest reads what all of a cell's events share.
  std::optional<double> from_s, to_s;
  std::vector<EventFilter> filters;
  for (EventSelection s : selections) {
    if (s.from_s) from_s = std::max(from_s.value_or(*s.from_s), *s.from_s);
    if (s.to_s) to_s = std::min(to_s.value_or(*s.to_s), *s.to_s);
    s.from_s.reset();
    s.to_s.reset();
    if (EventFilter filter = event_filter(s, experiments_)) filters.push_back(std::move(filter));
  }
  if (only) filters.push_back(only);

  std::vector<size_t> chosen;
  for (size_t s = 0; s < cells_.thread_shares(); ++s) {
    const StackKey key = cells_.entry_stack(s);
    const auto [first, last] = cells_.entry_times(s);
    // What the filters read of an event is the same for all of a cell's.
    const lumen_event event{first, key.stack_id, cells_.entry_thread(s), -1, nullptr};
    if (!std::all_of(filters.begin(), filters.end(), [&](const EventFilter& f) { return f(key.experiment, event); }))
      continue;
    if (from_s || to_s) {
      // As event_filter computes an event's time.
      const uint64_t start = experiments_[key.experiment]->start_ns();
      const auto seconds = [start](uint64_t t) { return t >= start ? static_cast<double>(t - start) / 1e9 : 0.0; };
      const double from = seconds(first), to = seconds(last);
      if ((from_s && to < *from_s) || (to_s && from > *to_s)) continue;
      if ((from_s && from < *from_s) || (to_s && to > *to_s)) return false;
    }
    chosen.push_back(s);
  }
  for (const size_t s : chosen) visit(s);
  return true;
}

}  // namespace lumen::analysis
