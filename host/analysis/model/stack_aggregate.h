// Events aggregated per unique (experiment, load-object epoch, stack,
// stitch chain): one row of metric values per key, and each row's share per
// thread, both in the order their first event was read. The data files whose
// decoders allow it are decoded in parts on several threads, each part into
// an aggregate of its own, merged in file order: the result is the one a
// single pass gives, whatever the number of threads.
#pragma once

#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "experiment.h"
#include "interval_split.h"
#include "view_mode.h"

namespace lumen::analysis {

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

struct StackKeyHash {
  size_t operator()(const StackKey& k) const {
    return std::hash<uint64_t>()(k.stack_id * 0x9e3779b97f4a7c15ull ^ (uint64_t{k.experiment} << 32 | k.epoch) ^
                                 (uint64_t{k.chain} * 0xff51afd7ed558ccdull));
  }
};

// Sees the profile's one pass over the events, so that a reader needing
// their times too (er_html's timeline) decodes nothing again: each event
// the event filter selected, with the row it was summed in (stack_of_row
// says, once the profile is built, which unique stack that row became, or
// that a stack filter dropped it), and the decoders' spans and levels.
// With an observer, every file is decoded in one pass, in file order.
struct ProfileObserver {
  std::function<void(size_t experiment, const DataFile&, const lumen_event&, uint32_t row)> event;
  std::function<void(size_t experiment, const DataFile&, const lumen_span&)> span;
  std::function<void(size_t experiment, const DataFile&, const char* name, lumen_metric_unit unit, uint64_t time_ns,
                     int64_t value)>
      level;
};

class StackAggregate {
 public:
  explicit StackAggregate(size_t metric_count) : metric_count_(metric_count) {}

  // One event of `file` (its values go to the registry's metrics through
  // the file's metric_index, and to the interval splits).
  // Returns the event's row.
  size_t add(const StackKey& key, size_t experiment, const DataFile& file, const lumen_event& event,
             const IntervalSplits& splits);
  // Appends a part read after everything here, its stack ids made the
  // experiment's by `ids`.
  void merge(const StackAggregate& part, const PartIdMap& ids);

  size_t metric_count() const { return metric_count_; }
  const std::vector<StackKey>& keys() const { return keys_; }
  const int64_t* row(size_t r) const { return values_.data() + r * metric_count_; }
  // Each row's share per thread: (row << 32 | thread id), its events, its values.
  size_t thread_shares() const { return share_keys_.size(); }
  uint64_t share_key(size_t s) const { return share_keys_[s]; }
  uint64_t share_events(size_t s) const { return share_events_[s]; }
  const int64_t* share_values(size_t s) const { return share_values_.data() + s * metric_count_; }

  uint64_t events_read = 0;
  uint64_t events_with_cpu = 0;

 private:
  size_t row_of(const StackKey& key);
  size_t share_of(uint64_t share_key);

  void grow_slots();

  size_t metric_count_;
  // Rows by key: open addressing, a power of two of slots, at most half full
  // (one lookup per event: no division, no node per row).
  std::vector<uint32_t> slots_;  // row + 1, 0: empty
  std::vector<size_t> hashes_;   // of each row's key
  std::vector<StackKey> keys_;
  std::vector<int64_t> values_;
  std::unordered_map<uint64_t, size_t> shares_;
  // Each row's latest thread and share: a row's events mostly come from one thread.
  std::vector<uint32_t> row_thread_;
  std::vector<size_t> row_share_;
  std::vector<uint64_t> share_keys_;
  std::vector<uint64_t> share_events_;
  std::vector<int64_t> share_values_;
};

// Every event of `experiments` that `filter` selects, aggregated; the data
// files that allow it decoded on analysis_threads() threads unless an
// observer watches. Progress is shown on a terminal when this takes long
// (progress.h).
StackAggregate aggregate_events(const std::vector<std::unique_ptr<Experiment>>& experiments, size_t metric_count,
                                const EventFilter& filter, const IntervalSplits& splits, const StackShaper& shaper,
                                const ProfileObserver* observer = nullptr);

}  // namespace lumen::analysis
