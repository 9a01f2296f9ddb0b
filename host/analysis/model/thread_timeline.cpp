#include "thread_timeline.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "metric_sum.h"

namespace lumen::analysis {

namespace {

// A bin of a thread: (experiment, thread id, bin).
using BinKey = std::tuple<uint32_t, uint32_t, uint32_t>;

struct Sums {
  uint64_t events = 0;
  Values values;
};

void add_to(Sums& sums, uint64_t events, const int64_t* values, size_t metric_count) {
  if (sums.values.empty()) sums.values.assign(metric_count, 0);
  sums.events += events;
  add_values(sums.values.data(), values, metric_count);
}

// Visits each sum as SampledParts::place_in asks.
template <typename Map>
auto each_sum(Map& sums) {
  return [&sums](auto&& visit) {
    for (auto& [key, sum] : sums) visit(std::get<0>(key), std::get<1>(key), sum.values.data());
  };
}

}  // namespace

std::optional<std::vector<TimelineBin>> thread_timeline(const EventCells& cells,
                                                        const std::vector<EventSelection>& selections,
                                                        const SampledParts& sampled_parts, StackShaper& shaper,
                                                        const LeafRank& rank) {
  const StackAggregate& aggregate = cells.aggregate();
  const size_t metric_count = aggregate.metric_count();
  std::map<BinKey, Sums> bins;
  // Each bin's share by leaf function: (experiment, thread, bin, leaf).
  std::map<std::tuple<uint32_t, uint32_t, uint32_t, FunctionId>, Sums> leaves;
  std::map<std::tuple<uint32_t, uint32_t, uint64_t, uint32_t>, FunctionId> leaf_of_stack;
  std::vector<FunctionId> frames;
  const bool told = cells.for_each_selected(selections, {}, [&](size_t cell) {
    const StackKey stack = aggregate.entry_stack(cell);
    const uint32_t thread = aggregate.entry_thread(cell);
    const uint32_t bin = aggregate.entry_cell(cell).bin;
    const auto [known, added] =
        leaf_of_stack.try_emplace({stack.experiment, stack.epoch, stack.stack_id, stack.chain}, kTotalFunction);
    if (added) {
      shaper.frames(stack.experiment, stack.epoch, stack.stack_id, stack.chain, frames);
      if (!frames.empty()) known->second = frames.front();
    }
    const int64_t* values = aggregate.share_values(cell);
    const uint64_t events = aggregate.share_events(cell);
    add_to(bins[{stack.experiment, thread, bin}], events, values, metric_count);
    add_to(leaves[{stack.experiment, thread, bin, known->second}], events, values, metric_count);
  });
  if (!told) return std::nullopt;
  // A thread with samples anywhere has them in some bin and some leaf:
  // both are placed by the same threads.
  sampled_parts.place_in(each_sum(bins));
  sampled_parts.place_in(each_sum(leaves));

  std::vector<TimelineBin> timeline;
  for (auto& [key, sum] : bins) {
    const auto [experiment, thread, bin] = key;
    timeline.push_back({experiment, thread, bin, sum.events, std::move(sum.values), kTotalFunction});
  }
  // The leaves come in the bins' order: the leading one of each bin (by
  // the rank, then by events).
  size_t at = 0, ranked = SIZE_MAX;
  std::pair<double, uint64_t> best;
  for (const auto& [key, sum] : leaves) {
    const auto [experiment, thread, bin, leaf] = key;
    while (BinKey{timeline[at].experiment, timeline[at].thread_id, timeline[at].bin} < BinKey{experiment, thread, bin})
      ++at;
    const std::pair<double, uint64_t> value{rank(sum.values), sum.events};
    if (ranked != at || value > best) {
      timeline[at].leaf = leaf;
      best = value;
      ranked = at;
    }
  }
  return timeline;
}

}  // namespace lumen::analysis
