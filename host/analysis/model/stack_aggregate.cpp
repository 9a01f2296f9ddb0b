#include "stack_aggregate.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "analysis_threads.h"
#include "progress.h"

namespace lumen::analysis {

void StackAggregate::grow_slots() {
  slots_.assign(slots_.empty() ? 1024 : slots_.size() * 2, 0);
  const size_t mask = slots_.size() - 1;
  for (size_t r = 0; r < keys_.size(); ++r) {
    size_t at = hashes_[r] & mask;
    while (slots_[at] != 0) at = (at + 1) & mask;
    slots_[at] = static_cast<uint32_t>(r + 1);
  }
}

size_t StackAggregate::row_of(const StackKey& key) {
  if (slots_.empty()) grow_slots();
  const size_t hash = StackKeyHash()(key);
  const size_t mask = slots_.size() - 1;
  size_t at = hash & mask;
  for (; slots_[at] != 0; at = (at + 1) & mask)
    if (hashes_[slots_[at] - 1] == hash && keys_[slots_[at] - 1] == key) return slots_[at] - 1;
  const size_t row = keys_.size();
  keys_.push_back(key);
  hashes_.push_back(hash);
  values_.resize(values_.size() + metric_count_, 0);
  row_thread_.push_back(UINT32_MAX);
  row_share_.push_back(0);
  slots_[at] = static_cast<uint32_t>(row + 1);
  if (keys_.size() * 2 > slots_.size()) grow_slots();
  return row;
}

size_t StackAggregate::share_of(uint64_t share_key) {
  const size_t r = static_cast<size_t>(share_key >> 32);
  const auto thread = static_cast<uint32_t>(share_key & 0xffffffffu);
  if (row_thread_[r] == thread) return row_share_[r];
  const auto [it, inserted] = shares_.try_emplace(share_key, share_keys_.size());
  if (inserted) {
    share_keys_.push_back(share_key);
    share_events_.push_back(0);
    share_values_.resize(share_values_.size() + metric_count_, 0);
  }
  row_thread_[r] = thread;
  row_share_[r] = it->second;
  return it->second;
}

size_t StackAggregate::add(const StackKey& key, size_t experiment, const DataFile& file, const lumen_event& event,
                           const IntervalSplits& splits) {
  const size_t r = row_of(key);
  const size_t plugin_metrics = file.metric_index.size();
  int64_t* row = values_.data() + r * metric_count_;
  for (size_t m = 0; m < plugin_metrics; ++m) row[file.metric_index[m]] += event.values[m];
  splits.add_shares(experiment, file, event, row);
  const size_t s = share_of(uint64_t{r} << 32 | event.thread_id);
  ++share_events_[s];
  int64_t* share = share_values_.data() + s * metric_count_;
  for (size_t m = 0; m < plugin_metrics; ++m) share[file.metric_index[m]] += event.values[m];
  splits.add_shares(experiment, file, event, share);
  return r;
}

void StackAggregate::merge(const StackAggregate& part, const PartIdMap& ids) {
  events_read += part.events_read;
  events_with_cpu += part.events_with_cpu;
  std::vector<size_t> row_here(part.keys_.size());
  for (size_t r = 0; r < part.keys_.size(); ++r) {
    StackKey key = part.keys_[r];
    key.stack_id = ids(key.stack_id);
    row_here[r] = row_of(key);
    int64_t* row = values_.data() + row_here[r] * metric_count_;
    for (size_t m = 0; m < metric_count_; ++m) row[m] += part.row(r)[m];
  }
  for (size_t s = 0; s < part.share_keys_.size(); ++s) {
    const uint64_t key = part.share_keys_[s];
    const size_t here = share_of(uint64_t{row_here[key >> 32]} << 32 | (key & 0xffffffffu));
    share_events_[here] += part.share_events_[s];
    int64_t* share = share_values_.data() + here * metric_count_;
    for (size_t m = 0; m < metric_count_; ++m) share[m] += part.share_values(s)[m];
  }
}

namespace {

struct Part {
  size_t experiment;
  const DataFile* file;
  size_t first_block;
  size_t end_block;
  std::unique_ptr<StackAggregate> aggregate;
  PartStackIds ids;
  std::exception_ptr failure;
  DecoderState state;  // kept when the plugin merges its parts' states
};

}  // namespace

StackAggregate aggregate_events(const std::vector<std::unique_ptr<Experiment>>& experiments, size_t metric_count,
                                const EventFilter& filter, const IntervalSplits& splits, const StackShaper& shaper,
                                const ProfileObserver* observer) {
  // `observe` only for the one-pass aggregate (its rows are the profile's).
  auto visitor = [&](StackAggregate& into, size_t e, const ProfileObserver* observe) {
    const Experiment& experiment = *experiments[e];
    return [&into, &experiment, &filter, &splits, &shaper, e, observe](const DataFile& file,
                                                                       const lumen_event& event) {
      ++into.events_read;
      if (event.cpu >= 0) ++into.events_with_cpu;
      if (filter && !filter(e, event)) return;
      const StackKey key{static_cast<uint32_t>(e), experiment.loadobjects().epoch_at(event.time_ns), event.stack_id,
                         shaper.chain_at(e, event.thread_id, event.time_ns)};
      const size_t row = into.add(key, e, file, event, splits);
      if (observe != nullptr && observe->event) observe->event(e, file, event, static_cast<uint32_t>(row));
    };
  };
  // The files in order; those decoded apart are cut into parts of blocks.
  struct Step {
    size_t experiment;
    const DataFile* file;
    size_t first_part;  // parts [first_part, end_part) when decoded apart
    size_t end_part;
  };
  std::vector<Step> steps;
  std::vector<Part> parts;
  for (size_t e = 0; e < experiments.size(); ++e)
    for (const DataFile& file : experiments[e]->data_files()) {
      Step step{e, &file, parts.size(), parts.size()};
      if (observer == nullptr && experiments[e]->decodes_blocks_apart(file)) {
        const size_t blocks = file.block_offsets.size();
        const size_t per_part = blocks_per_part(blocks);
        for (size_t b = 0; b < blocks; b += per_part)
          parts.push_back({e, &file, b, std::min(blocks, b + per_part), nullptr, {}, nullptr, {}});
        step.end_part = parts.size();
      }
      steps.push_back(step);
    }

  Progress progress("reading events");
  run_parts(
      parts.size(),
      [&](size_t i) {
        Part& part = parts[i];
        try {
          part.aggregate = std::make_unique<StackAggregate>(metric_count);
          experiments[part.experiment]->for_each_event_in_blocks(*part.file, part.first_block, part.end_block,
                                                                 visitor(*part.aggregate, part.experiment, nullptr),
                                                                 part.ids, &part.state);
        } catch (...) {
          part.failure = std::current_exception();
        }
      },
      [&](size_t finished) { progress.update(finished, parts.size()); });

  StackAggregate total(metric_count);
  for (const Step& step : steps) {
    const Experiment& experiment = *experiments[step.experiment];
    if (step.first_part == step.end_part && (observer != nullptr || !experiment.decodes_blocks_apart(*step.file))) {
      Experiment::TimelineVisitor timeline;
      const size_t e = step.experiment;
      if (observer != nullptr && observer->span)
        timeline.span = [&](const DataFile& file, const lumen_span& span) { observer->span(e, file, span); };
      if (observer != nullptr && observer->level)
        timeline.level = [&](const DataFile& file, const char* name, lumen_metric_unit unit, uint64_t time_ns,
                             int64_t value) { observer->level(e, file, name, unit, time_ns, value); };
      experiment.for_each_event_in(*step.file, visitor(total, e, observer), nullptr,
                                   observer != nullptr ? &timeline : nullptr);
      continue;
    }
    std::vector<DecoderState> states;
    for (size_t i = step.first_part; i < step.end_part; ++i) {
      if (parts[i].failure) std::rethrow_exception(parts[i].failure);
      total.merge(*parts[i].aggregate, experiment.adopt_part_ids(parts[i].ids));
      parts[i].aggregate.reset();
      if (parts[i].state) states.push_back(std::move(parts[i].state));
    }
    // What needed the whole file (leaks), from the parts' states merged.
    experiment.finish_parts(*step.file, states, visitor(total, step.experiment, nullptr));
  }
  return total;
}

}  // namespace lumen::analysis
