#include "stack_aggregate.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "analysis_threads.h"
#include "progress.h"
#include "sampled_parts.h"
#include "metric_sum.h"

namespace lumen::analysis {

// Puts entry `s` in the free slot its key probes to.
void StackAggregate::place(size_t s) {
  if (cells_) {
    const size_t mask = cell_slots_.size() - 1;
    size_t at = hash_of(entry_keys_[s], entry_cells_[s]) & mask;
    while (cell_slots_[at].entry != 0) at = (at + 1) & mask;
    cell_slots_[at] = {entry_keys_[s], entry_cells_[s], static_cast<uint32_t>(s + 1)};
  } else {
    const size_t mask = slots_.size() - 1;
    size_t at = hash_of(entry_keys_[s]) & mask;
    while (slots_[at].entry != 0) at = (at + 1) & mask;
    slots_[at] = {entry_keys_[s], static_cast<uint32_t>(s + 1)};
  }
}

void StackAggregate::grow_slots() {
  if (cells_) cell_slots_.assign(cell_slots_.empty() ? 1024 : cell_slots_.size() * 2, CellSlot{});
  else slots_.assign(slots_.empty() ? 1024 : slots_.size() * 2, Slot{});
  for (size_t s = 0; s < entry_keys_.size(); ++s) place(s);
}

size_t StackAggregate::new_entry(const EntryKey& k, const CellKey& cell) {
  const size_t capacity = cells_ ? cell_slots_.size() : slots_.size();
  const size_t s = entry_keys_.size();
  entry_keys_.push_back(k);
  if (cells_) entry_cells_.push_back(cell);
  if ((s + 1) * 2 > capacity) grow_slots();  // places the new entry too
  else place(s);
  entry_events_.push_back(0);
  entry_values_.resize(entry_values_.size() + metric_count_, 0);
  if (cells_) entry_times_.emplace_back(UINT64_MAX, 0);
  return s;
}

void StackAggregate::merge(const StackAggregate& part, const PartIdMap& ids) {
  events_read += part.events_read;
  events_with_cpu += part.events_with_cpu;
  for (size_t s = 0; s < part.entry_keys_.size(); ++s) {
    StackKey key = part.entry_keys_[s].stack_key();
    key.stack_id = ids(key.stack_id);
    const size_t here = entry_of(key, part.entry_keys_[s].thread, part.entry_cell(s));
    entry_events_[here] += part.entry_events_[s];
    int64_t* values = entry_values_.data() + here * metric_count_;
    add_values(values, part.share_values(s), metric_count_);
    if (cells_) {
      auto& [first, last] = entry_times_[here];
      first = std::min(first, part.entry_times_[s].first);
      last = std::max(last, part.entry_times_[s].second);
    }
  }
}

void StackAggregate::add_cell(const StackAggregate& cells, size_t s) {
  const size_t here = entry_of(cells.entry_keys_[s].stack_key(), cells.entry_keys_[s].thread);
  entry_events_[here] += cells.entry_events_[s];
  add_values(entry_values_.data() + here * metric_count_, cells.share_values(s), metric_count_);
}

void StackAggregate::finish() {
  // A row per key, in the order of its first entry (so of its first event).
  size_t capacity = 1024;  // a power of two at least twice the entries
  while (capacity < entry_keys_.size() * 2) capacity *= 2;
  std::vector<uint32_t> row_slots(capacity, 0);  // row + 1, 0: empty
  const size_t mask = row_slots.size() - 1;
  row_of_entry_.assign(entry_keys_.size(), 0);
  keys_.clear();
  values_.clear();
  for (size_t s = 0; s < entry_keys_.size(); ++s) {
    const StackKey key = entry_keys_[s].stack_key();
    size_t at = hash_of({key.stack_id, key.experiment, key.epoch, key.chain, 0}) & mask;
    while (row_slots[at] != 0 && !(keys_[row_slots[at] - 1] == key)) at = (at + 1) & mask;
    if (row_slots[at] == 0) {
      keys_.push_back(key);
      values_.resize(values_.size() + metric_count_, 0);
      row_slots[at] = static_cast<uint32_t>(keys_.size());
    }
    const size_t r = row_slots[at] - 1;
    row_of_entry_[s] = static_cast<uint32_t>(r);
    int64_t* row = values_.data() + r * metric_count_;
    add_values(row, share_values(s), metric_count_);
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
                                const EventFilter& filter, const IntervalSplits& splits,
                                const SampledParts* sampled_parts, const StackShaper& shaper,
                                const ProfileObserver* observer, const CellBinning* binning,
                                const TimeWindow& window) {
  // `observe` only for the one-pass aggregate (its rows are the profile's).
  auto visitor = [&](StackAggregate& into, size_t e, const ProfileObserver* observe) {
    const Experiment& experiment = *experiments[e];
    const bool stitched = shaper.stitches_in(e);
    return [&into, &experiment, &filter, &splits, &shaper, e, observe, stitched, binning](const DataFile& file,
                                                                                const lumen_event& event) {
      ++into.events_read;
      if (event.cpu >= 0) ++into.events_with_cpu;
      if (filter && !filter(e, event)) return;
      const StackKey key{static_cast<uint32_t>(e), experiment.loadobjects().epoch_at(event.time_ns), event.stack_id,
                         stitched ? shaper.chain_at(e, event.thread_id, event.time_ns) : 0};
      const CellKey cell = binning != nullptr ? binning->cell_of(experiment, event) : CellKey{};
      const size_t row = into.add(key, cell, e, file, event, splits);
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
  StackAggregate total(metric_count, binning != nullptr);
  for (size_t e = 0; e < experiments.size(); ++e)
    for (const DataFile& file : experiments[e]->data_files()) {
      Step step{e, &file, parts.size(), parts.size()};
      if (observer == nullptr && experiments[e]->decodes_blocks_apart(file)) {
        const size_t blocks = file.block_offsets.size();
        std::vector<std::pair<size_t, size_t>> runs{{0, blocks}};
        if (window.bounded()) {
          const auto [from_ns, to_ns] = window.on_clock(experiments[e]->start_ns());
          if (const auto near = experiments[e]->blocks_near(file, from_ns, to_ns)) {
            runs = near->runs;
            total.events_read += near->events_elsewhere;
            total.events_with_cpu += near->events_with_cpu_elsewhere;
          }
        }
        const size_t per_part = blocks_per_part(blocks);
        for (const auto& [first, end] : runs)
          for (size_t b = first; b < end; b += per_part)
            parts.push_back({e, &file, b, std::min(end, b + per_part), nullptr, {}, nullptr, {}});
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
          part.aggregate = std::make_unique<StackAggregate>(metric_count, binning != nullptr);
          experiments[part.experiment]->for_each_event_in_blocks(*part.file, part.first_block, part.end_block,
                                                                 visitor(*part.aggregate, part.experiment, nullptr),
                                                                 part.ids, &part.state);
        } catch (...) {
          part.failure = std::current_exception();
        }
      },
      [&](size_t finished) { progress.update(finished, parts.size()); });

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
  if (sampled_parts != nullptr) sampled_parts->place(total);
  total.finish();
  return total;
}

}  // namespace lumen::analysis
