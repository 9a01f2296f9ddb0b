#include "heap_views.h"

#include <lumen/record_format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "heap_timeline.h"

namespace lumen::heap {

namespace {

// Rows are per call stack. A stack id belongs to one experiment, and its
// frames depend on what was loaded when the allocation happened (a library
// unloaded with dlclose leaves its addresses to the next one): stacks are
// resolved once per (stack id, load-object map epoch) of their experiment,
// and told apart by their frames, so identical stacks of several experiments
// or epochs share a row.
struct StackGroup {
  std::string key;   // the frames: function and load object of each
  std::string leaf;  // the leaf's function: the row's name
  std::vector<std::string> frames;  // function, load object, function, ...
};

struct ExperimentHeap {
  uint64_t start_ns = 0;
  HeapTimeline timeline;
  std::map<std::pair<uint64_t, uint32_t>, uint32_t> group_of_stack;  // (stack id, epoch) -> group
};

class HeapData final : public HeapRecordReader {
 public:
  explicit HeapData(const lumen_view_host& host) : host_(host) {}

  // Reads every record of every experiment; false with a message if one is malformed.
  bool load(std::string& error);

  std::vector<ExperimentHeap>& experiments() { return experiments_; }
  const StackGroup& group(size_t index) const { return groups_[index]; }

 private:
  static void visit(void* self, uint16_t kind, const void* payload, uint16_t bytes, uint32_t thread_id);
  void start(const HeapStart& start) override;
  void op(const HeapOp& op) override;
  uint32_t group_at(ExperimentHeap& experiment, uint64_t stack_id, uint64_t time_ns);
  ExperimentHeap& current();

  const lumen_view_host& host_;
  std::vector<ExperimentHeap> experiments_;
  std::vector<StackGroup> groups_;
  std::unordered_map<std::string, uint32_t> group_by_key_;
  std::string error_;
};

bool HeapData::load(std::string& error) {
  host_.for_each_record(host_.context, visit, this);
  for (ExperimentHeap& e : experiments_) e.timeline.finish();
  error = error_;
  return error_.empty();
}

ExperimentHeap& HeapData::current() {
  if (experiments_.empty()) experiments_.emplace_back();
  return experiments_.back();
}

void HeapData::visit(void* opaque, uint16_t kind, const void* payload, uint16_t bytes, uint32_t) {
  auto* self = static_cast<HeapData*>(opaque);
  if (!self->error_.empty()) return;
  decode_heap_record(kind, payload, bytes, *self, self->error_);
}

void HeapData::start(const HeapStart& start) {
  // The first record of a process's file: what follows is that process.
  if (experiments_.empty() || experiments_.back().timeline.size() != 0 || experiments_.back().start_ns != 0)
    experiments_.emplace_back();
  experiments_.back().start_ns = start.time_ns;
}

void HeapData::op(const HeapOp& recorded) {
  ExperimentHeap& experiment = current();
  // Frames and the selection are settled now, while the host reads this op's experiment.
  HeapOp op = recorded;
  op.selected = host_.selected(host_.context, op.time_ns, op.thread_id) != 0;
  if (op.allocation) op.group = group_at(experiment, op.stack_id, op.time_ns);
  experiment.timeline.add(op);
}

uint32_t HeapData::group_at(ExperimentHeap& experiment, uint64_t stack_id, uint64_t time_ns) {
  const std::pair<uint64_t, uint32_t> at{stack_id, host_.map_epoch(host_.context, time_ns)};
  if (const auto it = experiment.group_of_stack.find(at); it != experiment.group_of_stack.end()) return it->second;
  std::vector<lumen_frame_name> frames(LUMEN_MAX_STACK_DEPTH);
  const size_t n = stack_id == LUMEN_NO_STACK
                       ? 0
                       : host_.stack_frames_at(host_.context, stack_id, time_ns, frames.data(), frames.size());
  StackGroup group;
  for (size_t i = 0; i < n; ++i) {
    group.key += std::string(frames[i].function) + '\t' + frames[i].load_object + '\n';
    group.frames.emplace_back(frames[i].function);
    group.frames.emplace_back(frames[i].load_object);
  }
  group.leaf = n > 0 ? frames[0].function : "<Unknown>";
  const auto [it, inserted] = group_by_key_.try_emplace(group.key, static_cast<uint32_t>(groups_.size()));
  if (inserted) groups_.push_back(std::move(group));
  experiment.group_of_stack.emplace(at, it->second);
  return it->second;
}

// ---- tables ----

struct Row {
  std::string name;
  size_t group;  // SIZE_MAX: not a stack
  double count;
  double bytes;
};

void sort_largest_first(std::vector<Row>& rows) {
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.count != b.count) return a.count > b.count;
    return a.name < b.name;
  });
}

void emit_table(const lumen_view_host& host, HeapData* data, const char* title, const char* count_title,
                const char* bytes_title, std::vector<Row> rows, bool limited) {
  const lumen_view_column columns[] = {{"count", count_title, LUMEN_UNIT_COUNT},
                                       {"bytes", bytes_title, LUMEN_UNIT_BYTES}};
  host.table_begin(host.context, title, columns, 2);
  const size_t shown = limited && host.row_limit != 0 ? std::min(host.row_limit, rows.size()) : rows.size();
  std::vector<lumen_frame_name> frames;
  for (size_t i = 0; i < shown; ++i) {
    const double values[] = {rows[i].count, rows[i].bytes};
    if (rows[i].group == SIZE_MAX) {
      host.table_row(host.context, rows[i].name.c_str(), values, LUMEN_NO_STACK);
      continue;
    }
    const std::vector<std::string>& names = data->group(rows[i].group).frames;
    frames.clear();
    for (size_t f = 0; f + 1 < names.size(); f += 2) frames.push_back({names[f].c_str(), names[f + 1].c_str()});
    host.table_row_frames(host.context, rows[i].name.c_str(), values, frames.data(), frames.size());
  }
}

// Adds allocations to per-stack rows.
class StackRows {
 public:
  explicit StackRows(HeapData& data) : data_(data) {}
  void add(const HeapOp& op) {
    const size_t group = op.group;
    const auto [it, inserted] = index_.try_emplace(group, rows_.size());
    if (inserted) rows_.push_back({data_.group(group).leaf, group, 0, 0});
    rows_[it->second].count += 1;
    rows_[it->second].bytes += static_cast<double>(op.size);
    total_count_ += 1;
    total_bytes_ += static_cast<double>(op.size);
  }
  std::vector<Row> sorted() const {
    std::vector<Row> rows = rows_;
    sort_largest_first(rows);
    return rows;
  }
  double total_count() const { return total_count_; }
  double total_bytes() const { return total_bytes_; }

 private:
  HeapData& data_;
  std::vector<Row> rows_;
  std::unordered_map<size_t, size_t> index_;
  double total_count_ = 0;
  double total_bytes_ = 0;
};

int fail(const std::string& message, char* error, size_t error_size) {
  std::snprintf(error, error_size, "%s", message.c_str());
  return 1;
}

std::string size_bucket_name(int bucket) {
  if (bucket == 0) return "0";
  const uint64_t low = 1ull << (bucket - 1);
  const uint64_t high = bucket == 64 ? UINT64_MAX : (1ull << bucket) - 1;
  return low == high ? std::to_string(low) : std::to_string(low) + " - " + std::to_string(high);
}

}  // namespace

int run_allocs_view(const lumen_view_host* host, char* error, size_t error_size) {
  HeapData data(*host);
  std::string problem;
  if (!data.load(problem)) return fail(problem, error, error_size);
  StackRows rows(data);
  for (const ExperimentHeap& e : data.experiments())
    for (const HeapOp& op : e.timeline.ops())
      if (op.allocation && op.selected) rows.add(op);
  host->summary(host->context, "allocations", "Allocations", rows.total_count(), LUMEN_UNIT_COUNT);
  host->summary(host->context, "bytes", "Bytes allocated", rows.total_bytes(), LUMEN_UNIT_BYTES);
  emit_table(*host, &data, "Allocations by call stack", "Allocations", "Bytes allocated", rows.sorted(), true);
  return 0;
}

int run_leaks_view(const lumen_view_host* host, char* error, size_t error_size) {
  HeapData data(*host);
  std::string problem;
  if (!data.load(problem)) return fail(problem, error, error_size);
  StackRows rows(data);
  for (const ExperimentHeap& e : data.experiments())
    for (const size_t index : e.timeline.replay(PairOnly{}))
      if (e.timeline.ops()[index].selected) rows.add(e.timeline.ops()[index]);
  host->summary(host->context, "leaks", "Leaks", rows.total_count(), LUMEN_UNIT_COUNT);
  host->summary(host->context, "bytes", "Bytes leaked", rows.total_bytes(), LUMEN_UNIT_BYTES);
  emit_table(*host, &data, "Leaks by call stack", "Leaks", "Bytes leaked", rows.sorted(), true);
  return 0;
}

int run_heap_view(const lumen_view_host* host, char* error, size_t error_size) {
  HeapData data(*host);
  std::string problem;
  if (!data.load(problem)) return fail(problem, error, error_size);

  double allocations = 0, bytes = 0, frees = 0, unmatched = 0, leaks = 0, leaked = 0;
  double histogram_count[65] = {}, histogram_bytes[65] = {};
  double by_allocator_count[kAllocatorCount] = {}, by_allocator_bytes[kAllocatorCount] = {};
  const ExperimentHeap* peak_experiment = nullptr;
  const std::vector<HeapOp> no_ops;
  PeakFinder peak(no_ops);
  for (const ExperimentHeap& e : data.experiments()) {
    const auto& ops = e.timeline.ops();
    for (const HeapOp& op : ops) {
      if (!op.allocation || !op.selected) continue;
      allocations += 1;
      bytes += static_cast<double>(op.size);
      const int bucket = op.size == 0 ? 0 : 64 - __builtin_clzll(op.size);
      histogram_count[bucket] += 1;
      histogram_bytes[bucket] += static_cast<double>(op.size);
      by_allocator_count[static_cast<int>(op.allocator)] += 1;
      by_allocator_bytes[static_cast<int>(op.allocator)] += static_cast<double>(op.size);
    }
    PeakFinder finder(ops);
    for (const size_t index : e.timeline.replay(finder)) {
      if (!ops[index].selected) continue;
      leaks += 1;
      leaked += static_cast<double>(ops[index].size);
    }
    frees += static_cast<double>(finder.frees);
    unmatched += static_cast<double>(finder.unmatched_frees);
    if (peak_experiment == nullptr || finder.peak_bytes > peak.peak_bytes) {
      peak_experiment = &e;
      peak = finder;
    }
  }

  const auto summary = [&](const char* key, const char* label, double value, lumen_metric_unit unit) {
    host->summary(host->context, key, label, value, unit);
  };
  summary("allocations", "Allocations", allocations, LUMEN_UNIT_COUNT);
  summary("bytes_allocated", "Bytes allocated", bytes, LUMEN_UNIT_BYTES);
  summary("frees", "Deallocations of traced allocations", frees, LUMEN_UNIT_COUNT);
  summary("unmatched_frees", "Deallocations of untraced addresses (ignored)", unmatched, LUMEN_UNIT_COUNT);
  summary("leaks", "Leaks", leaks, LUMEN_UNIT_COUNT);
  summary("bytes_leaked", "Bytes leaked", leaked, LUMEN_UNIT_BYTES);
  const bool has_peak = peak_experiment != nullptr && peak.peak_bytes > 0;
  summary("peak_bytes", "Peak bytes in use", has_peak ? static_cast<double>(peak.peak_bytes) : 0, LUMEN_UNIT_BYTES);
  summary("peak_allocations", "Allocations live at the peak", has_peak ? static_cast<double>(peak.peak_live) : 0,
          LUMEN_UNIT_COUNT);
  summary("peak_time", "Peak reached after (since collection start)",
          has_peak && peak.peak_time >= peak_experiment->start_ns && peak_experiment->start_ns != 0
              ? static_cast<double>(peak.peak_time - peak_experiment->start_ns)
              : 0,
          LUMEN_UNIT_NANOSECONDS);

  std::vector<Row> sizes;
  for (int b = 0; b < 65; ++b)
    if (histogram_count[b] > 0) sizes.push_back({size_bucket_name(b), SIZE_MAX, histogram_count[b], histogram_bytes[b]});
  emit_table(*host, &data, "Allocation sizes (bytes)", "Allocations", "Bytes allocated", sizes, false);

  std::vector<Row> functions;
  for (int a = 0; a < kAllocatorCount; ++a)
    if (by_allocator_count[a] > 0)
      functions.push_back({kAllocatorNames[a], SIZE_MAX, by_allocator_count[a], by_allocator_bytes[a]});
  sort_largest_first(functions);
  emit_table(*host, &data, "Allocations by function", "Allocations", "Bytes allocated", functions, false);

  StackRows at_peak(data);
  if (has_peak)
    for (const size_t index : peak_experiment->timeline.replay(PairOnly{}, peak.peak_end))
      if (peak_experiment->timeline.ops()[index].selected) at_peak.add(peak_experiment->timeline.ops()[index]);
  emit_table(*host, &data, "In use at the peak, by call stack", "Allocations", "Bytes in use", at_peak.sorted(), true);
  return 0;
}

}  // namespace lumen::heap
