// Events aggregated per unique (experiment, load-object epoch, stack,
// stitch chain): one row of metric values per key, and each row's share per
// thread, both in the order their first event was read. An aggregate of
// cells (event_cells.h) keys each share by the events' sample and time bin
// too, and keeps the times of its first and last event. The data files whose
// decoders allow it are decoded in parts on several threads, each part into
// an aggregate of its own, merged in file order: the result is the one a
// single pass gives, whatever the number of threads.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

#include "experiment.h"
#include "time_window.h"
#include "interval_split.h"
#include "view_mode.h"
#include "metric_sum.h"

namespace lumen::analysis {

class SampledParts;

// Selects events before aggregation; empty accepts all. Called from several
// threads at once: it must only read.
using EventFilter = std::function<bool(size_t experiment_index, const lumen_event&)>;

struct StackKey {
  uint32_t experiment;
  uint32_t epoch;
  uint64_t stack_id;
  uint32_t chain;  // the stitches covering the event (view_mode.h), 0: none
  bool operator==(const StackKey&) const = default;
};

// Where an event lies besides its stack and thread, in an aggregate of
// cells; zero in any other.
struct CellKey {
  uint32_t sample = 0;
  uint32_t bin = 0;
  bool operator==(const CellKey&) const = default;
};

struct StackKeyHash {
  size_t operator()(const StackKey& k) const {
    return std::hash<uint64_t>()(k.stack_id * 0x9e3779b97f4a7c15ull ^ (uint64_t{k.experiment} << 32 | k.epoch) ^
                                 (uint64_t{k.chain} * 0xff51afd7ed558ccdull));
  }
};

// Sees the profile's one pass over the events, so that a reader needing
// their times too (er_html's timeline) decodes nothing again: each event
// the event filter selected, with the entry it was summed in (stack_of_entry
// says, once the profile is built, which unique stack that entry's row
// became, or that a stack filter dropped it), and the decoders' spans and
// levels. With an observer, every file is decoded in one pass, in file order.
struct ProfileObserver {
  std::function<void(size_t experiment, const DataFile&, const lumen_event&, uint32_t entry)> event;
  std::function<void(size_t experiment, const DataFile&, const lumen_span&)> span;
  std::function<void(size_t experiment, const DataFile&, const char* name, lumen_metric_unit unit, uint64_t time_ns,
                     int64_t value)>
      level;
};

// Events are summed per entry, a (key, thread) pair, with one table lookup
// an event; the rows (per key) are the sums of their entries, made once by
// finish(). Entries and rows are numbered in the order of their first event.
class StackAggregate {
 public:
  explicit StackAggregate(size_t metric_count, bool cells = false)
      : metric_count_(metric_count), cells_(cells), recent_(cells ? kRecentSlots : 0) {}

  // One event of `file` (its values go to the registry's metrics through
  // the file's metric_index, and to the interval splits).
  // Returns the event's entry.
  size_t add(const StackKey& key, const CellKey& cell, size_t experiment, const DataFile& file,
             const lumen_event& event, const IntervalSplits& splits) {
    const size_t s = entry_of(key, event.thread_id, cell);
    ++entry_events_[s];
    if (cells_) {
      auto& [first, last] = entry_times_[s];
      first = std::min(first, event.time_ns);
      last = std::max(last, event.time_ns);
    }
    int64_t* values = entry_values_.data() + s * metric_count_;
    const size_t* index = file.metric_index.data();
    for (size_t m = 0, n = file.metric_index.size(); m < n; ++m) add_saturating(values[index[m]], event.values[m]);
    if (!splits.none_in(experiment)) splits.add_shares(experiment, file, event, values);
    return s;
  }
  // Appends a part read after everything here, its stack ids made the
  // experiment's by `ids`.
  void merge(const StackAggregate& part, const PartIdMap& ids);
  // Adds entry `s` of an aggregate of cells (its events and values) to
  // this one's entry of the same stack and thread.
  void add_cell(const StackAggregate& cells, size_t s);
  // Sums the entries into rows; after the last add or merge.
  void finish();
  // Frees the index of entries by key, which only add and merge use (an
  // aggregate of cells is read, never added to, once made).
  void forget_index() {
    std::vector<Slot>().swap(slots_);
    std::vector<CellSlot>().swap(cell_slots_);
    std::vector<CellSlot>().swap(recent_);
  }
  // Calls visit(experiment, thread, values) for each entry, whose values
  // it may change; before finish().
  template <typename Visit>
  void for_each_entry(Visit&& visit) {
    for (size_t s = 0; s < entry_keys_.size(); ++s)
      visit(entry_keys_[s].experiment, entry_keys_[s].thread, entry_values_.data() + s * metric_count_);
  }

  size_t metric_count() const { return metric_count_; }
  const std::vector<StackKey>& keys() const { return keys_; }
  const int64_t* row(size_t r) const { return values_.data() + r * metric_count_; }
  // Each row's share per thread (one an entry): (row << 32 | thread id), its events, its values.
  size_t thread_shares() const { return entry_keys_.size(); }
  uint64_t share_key(size_t s) const { return uint64_t{row_of_entry_[s]} << 32 | entry_keys_[s].thread; }
  uint64_t share_events(size_t s) const { return entry_events_[s]; }
  const int64_t* share_values(size_t s) const { return entry_values_.data() + s * metric_count_; }
  // An aggregate of cells: an entry's stack, thread and cell, and the times
  // of its first and last event.
  StackKey entry_stack(size_t s) const { return entry_keys_[s].stack_key(); }
  uint32_t entry_thread(size_t s) const { return entry_keys_[s].thread; }
  CellKey entry_cell(size_t s) const { return cells_ ? entry_cells_[s] : CellKey{}; }
  std::pair<uint64_t, uint64_t> entry_times(size_t s) const { return entry_times_[s]; }

  uint64_t events_read = 0;
  uint64_t events_with_cpu = 0;

 private:
  // A StackKey and a thread, flat: 24 bytes.
  struct EntryKey {
    uint64_t stack_id;
    uint32_t experiment;
    uint32_t epoch;
    uint32_t chain;
    uint32_t thread;
    bool operator==(const EntryKey&) const = default;
    StackKey stack_key() const { return {experiment, epoch, stack_id, chain}; }
  };
  // A slot of the open-addressing table (32 bytes): the key inline, so that
  // a lookup reads one cache line; entry + 1, 0 when empty. An aggregate of
  // cells keys by the cell too, in slots of its own (40 bytes): a plain
  // pass, one lookup an event, carries none of it.
  struct Slot {
    EntryKey key;
    uint32_t entry;
  };
  struct CellSlot {
    EntryKey key;
    CellKey cell;
    uint32_t entry;
  };

  static uint64_t mix(const EntryKey& k) {
    uint64_t h = k.stack_id * 0x9e3779b97f4a7c15ull;
    h ^= (uint64_t{k.experiment} << 32 | k.epoch) * 0xc2b2ae3d27d4eb4full;
    h ^= (uint64_t{k.chain} << 32 | k.thread) * 0xff51afd7ed558ccdull;
    return h;
  }
  static size_t hash_of(const EntryKey& k) {
    const uint64_t h = mix(k);
    return static_cast<size_t>(h ^ (h >> 29));
  }
  static size_t hash_of(const EntryKey& k, const CellKey& cell) {
    const uint64_t h = mix(k) ^ (uint64_t{cell.sample} << 32 | cell.bin) * 0x9e3779b97f4a7c15ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
  // The entry in `slots` whose key `same` accepts, probing from `hash`;
  // SIZE_MAX when none.
  template <typename SlotType, typename Same>
  static size_t probe(const std::vector<SlotType>& slots, size_t hash, Same same) {
    if (slots.empty()) return SIZE_MAX;
    const size_t mask = slots.size() - 1;
    for (size_t at = hash & mask; slots[at].entry != 0; at = (at + 1) & mask)
      if (same(slots[at])) return slots[at].entry - 1;
    return SIZE_MAX;
  }
  size_t entry_of(const StackKey& key, uint32_t thread, const CellKey& cell = {}) {
    const EntryKey k{key.stack_id, key.experiment, key.epoch, key.chain, thread};
    if (!cells_) {
      const size_t entry = probe(slots_, hash_of(k), [&](const Slot& s) { return s.key == k; });
      return entry != SIZE_MAX ? entry : new_entry(k, cell);
    }
    const size_t hash = hash_of(k, cell);
    // Cells are many more than the stacks of one time bin, and events come
    // about in time order: the cells of the bins at hand are looked up in a
    // small table that stays in the cache, before the large one.
    CellSlot& recent = recent_[hash & (kRecentSlots - 1)];
    if (recent.entry != 0 && recent.key == k && recent.cell == cell) return recent.entry - 1;
    size_t entry = probe(cell_slots_, hash, [&](const CellSlot& s) { return s.key == k && s.cell == cell; });
    if (entry == SIZE_MAX) entry = new_entry(k, cell);
    recent = {k, cell, static_cast<uint32_t>(entry + 1)};
    return entry;
  }
  size_t new_entry(const EntryKey& k, const CellKey& cell);
  void grow_slots();
  void place(size_t entry);

  size_t metric_count_;
  bool cells_;  // an aggregate of cells: its entries are keyed by cell too
  // Entries by key: open addressing, a power of two of slots, at most half
  // full (no division, no node per entry). One of the two tables is used.
  std::vector<Slot> slots_;
  std::vector<CellSlot> cell_slots_;
  static constexpr size_t kRecentSlots = 4096;
  std::vector<CellSlot> recent_;  // an aggregate of cells: kRecentSlots, direct-mapped
  std::vector<EntryKey> entry_keys_;
  std::vector<CellKey> entry_cells_;  // an aggregate of cells only
  std::vector<uint64_t> entry_events_;
  std::vector<int64_t> entry_values_;
  std::vector<std::pair<uint64_t, uint64_t>> entry_times_;  // an aggregate of cells only
  // Made by finish().
  std::vector<uint32_t> row_of_entry_;
  std::vector<StackKey> keys_;
  std::vector<int64_t> values_;
};

// How an aggregate of cells places an event: its sample, and its time bin
// (bin_ns wide from each experiment's start).
struct CellBinning {
  uint64_t bin_ns = 1;
  CellKey cell_of(const Experiment& experiment, const lumen_event& event) const {
    const uint64_t start = experiment.start_ns();
    const uint64_t since = event.time_ns > start ? event.time_ns - start : 0;
    return {experiment.samples().sample_at(event.time_ns),
            static_cast<uint32_t>(std::min<uint64_t>(since / bin_ns, UINT32_MAX))};
  }
};

// Every event of `experiments` that `filter` selects, aggregated; the data
// files that allow it decoded on analysis_threads() threads unless an
// observer watches. Progress is shown on a terminal when this takes long
// (progress.h).
// Each sampled part (sampled_parts.h) is placed at its samples, when given.
// With `binning`, an aggregate of cells. With a bounded `window` (which
// `filter` must keep no event outside of), the files decoded apart are
// read only in the blocks holding that time; events_read counts the others
// as read.
StackAggregate aggregate_events(const std::vector<std::unique_ptr<Experiment>>& experiments, size_t metric_count,
                                const EventFilter& filter, const IntervalSplits& splits,
                                const SampledParts* sampled_parts, const StackShaper& shaper,
                                const ProfileObserver* observer = nullptr, const CellBinning* binning = nullptr,
                                const TimeWindow& window = {});

}  // namespace lumen::analysis
