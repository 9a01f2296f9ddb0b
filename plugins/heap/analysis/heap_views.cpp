#include "heap_views.h"

#include <lumen/record_format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "heap_data.h"

namespace lumen::heap {

namespace {

// ---- tables ----

struct Row {
  std::string name;
  size_t group;  // SIZE_MAX: not a stack
  double count;
  double bytes;
};

// Largest first; rows equal in both and in name in the order of their
// stacks' frames, however they were summed.
void sort_largest_first(std::vector<Row>& rows, const HeapData* data = nullptr) {
  std::sort(rows.begin(), rows.end(), [data](const Row& a, const Row& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    if (a.count != b.count) return a.count > b.count;
    if (a.name != b.name) return a.name < b.name;
    if (data == nullptr || a.group == b.group || a.group == SIZE_MAX || b.group == SIZE_MAX) return a.group < b.group;
    return data->group(a.group).key < data->group(b.group).key;
  });
}

void emit_table(const lumen_view_host& host, const HeapData* data, const char* title, const char* count_title,
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
  explicit StackRows(const HeapData& data) : data_(data) {}
  void add(uint32_t group, double count, double bytes) {
    const auto [it, inserted] = index_.try_emplace(group, rows_.size());
    if (inserted) rows_.push_back({data_.group(group).leaf, group, 0, 0});
    rows_[it->second].count += count;
    rows_[it->second].bytes += bytes;
    total_count_ += count;
    total_bytes_ += bytes;
  }
  void add(const HeapOp& op) { add(op.group, 1, static_cast<double>(op.size)); }
  std::vector<Row> sorted() const {
    std::vector<Row> rows = rows_;
    sort_largest_first(rows, &data_);
    return rows;
  }
  double total_count() const { return total_count_; }
  double total_bytes() const { return total_bytes_; }

 private:
  const HeapData& data_;
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

// -heap: totals, sizes, allocators, and the peak of the bytes the selected
// allocations hold, with the stacks holding them then, in one sweep. The
// peak is the first moment the bytes in use reached their highest value;
// the per-stack bytes in use are copied at the first change after a new
// peak (a later allocation that is itself a new peak replaces it).
// When the experiment recorded its highest bytes in use (the paired form's
// kHighest) and the selection takes all of it, the peak is that value, and
// what was live then is what the ops before it (HeapData::highest) left
// live: exact whatever the order of the marks.
class HeapStatistics final : public HeapVisitor {
 public:
  explicit HeapStatistics(const HeapData& data) : data_(data) {}

  void experiment_begin(uint32_t experiment) override {
    highest_ = data_.highest(experiment);
    all_selected_ = true;
  }
  void allocated(const HeapOp& op) override {
    all_selected_ = all_selected_ && op.selected;
    if (before_highest(op)) {
      exact_in_use_ += op.size;
      exact_live_ += 1;
      change(exact_by_group_, op.group, 1, lumen_value_of(op.size));
      if (op.raised_highest && op.highest == highest_) exact_time_ = op.time_ns;
    }
    if (!op.selected) return;
    allocations_ += 1;
    bytes_ += static_cast<double>(op.size);
    const int bucket = op.size == 0 ? 0 : 64 - __builtin_clzll(op.size);
    histogram_count_[bucket] += 1;
    histogram_bytes_[bucket] += static_cast<double>(op.size);
    by_allocator_count_[static_cast<int>(op.allocator)] += 1;
    by_allocator_bytes_[static_cast<int>(op.allocator)] += static_cast<double>(op.size);
    const bool new_peak = in_use_ + op.size > current_.peak_bytes;
    if (!new_peak) settle_peak();
    in_use_ += op.size;
    live_ += 1;
    change_group(op.group, 1, lumen_value_of(op.size));
    if (new_peak) {
      current_.peak_bytes = in_use_;
      current_.peak_live = live_;
      current_.peak_time = op.time_ns;
      peak_unsettled_ = true;
    }
  }
  void released(const HeapOp& allocation, const HeapOp& by) override {
    all_selected_ = all_selected_ && allocation.selected;
    if (before_highest(by) && before_highest(allocation)) {
      exact_in_use_ -= allocation.size;
      exact_live_ -= 1;
      change(exact_by_group_, allocation.group, -1, -lumen_value_of(allocation.size));
    }
    if (!allocation.selected) return;
    settle_peak();
    in_use_ -= allocation.size;
    live_ -= 1;
    change_group(allocation.group, -1, -lumen_value_of(allocation.size));
    if (!by.allocation) frees_ += 1;
  }
  void unmatched(const HeapOp& op) override {
    all_selected_ = all_selected_ && op.selected;
    if (op.selected) unmatched_ += 1;
  }
  void experiment_end(uint32_t experiment, const LiveSet& live) override {
    settle_peak();
    if (highest_ != 0 && all_selected_) {
      current_.peak_bytes = highest_;
      current_.peak_live = exact_live_;
      current_.peak_time = exact_time_;
      current_.by_group.clear();
      for (uint32_t g = 0; g < exact_by_group_.size(); ++g)
        if (exact_by_group_[g].count > 0) current_.by_group.emplace_back(g, exact_by_group_[g]);
    }
    highest_ = 0;
    exact_in_use_ = exact_live_ = exact_time_ = 0;
    exact_by_group_.clear();
    for (const auto& [address, op] : live)
      if (op.selected) {
        leaks_ += 1;
        leaked_ += static_cast<double>(op.size);
      }
    current_.experiment = experiment;
    if (!have_best_ || current_.peak_bytes > best_.peak_bytes) {
      best_ = std::move(current_);
      have_best_ = true;
    }
    current_ = Peak{};
    in_use_ = 0;
    live_ = 0;
    in_use_by_group_.clear();
  }

  void report(const lumen_view_host& host, const HeapData& data) const {
    const auto summary = [&](const char* key, const char* label, double value, lumen_metric_unit unit) {
      host.summary(host.context, key, label, value, unit);
    };
    summary("allocations", "Allocations", allocations_, LUMEN_UNIT_COUNT);
    summary("bytes_allocated", "Bytes allocated", bytes_, LUMEN_UNIT_BYTES);
    summary("frees", "Deallocations of traced allocations", frees_, LUMEN_UNIT_COUNT);
    summary("unmatched_frees", "Deallocations of untraced addresses (ignored)", unmatched_, LUMEN_UNIT_COUNT);
    summary("leaks", "Leaks", leaks_, LUMEN_UNIT_COUNT);
    summary("bytes_leaked", "Bytes leaked", leaked_, LUMEN_UNIT_BYTES);
    const bool has_peak = have_best_ && best_.peak_bytes > 0;
    const uint64_t start = has_peak ? data.start_ns(best_.experiment) : 0;
    summary("peak_bytes", "Peak bytes in use", has_peak ? static_cast<double>(best_.peak_bytes) : 0, LUMEN_UNIT_BYTES);
    summary("peak_allocations", "Allocations live at the peak", has_peak ? static_cast<double>(best_.peak_live) : 0,
            LUMEN_UNIT_COUNT);
    summary("peak_time", "Peak reached after (since collection start)",
            has_peak && best_.peak_time >= start && start != 0 ? static_cast<double>(best_.peak_time - start) : 0,
            LUMEN_UNIT_NANOSECONDS);

    std::vector<Row> sizes;
    for (int b = 0; b < 65; ++b)
      if (histogram_count_[b] > 0)
        sizes.push_back({size_bucket_name(b), SIZE_MAX, histogram_count_[b], histogram_bytes_[b]});
    emit_table(host, &data, "Allocation sizes (bytes)", "Allocations", "Bytes allocated", sizes, false);

    std::vector<Row> functions;
    for (int a = 0; a < kAllocatorCount; ++a)
      if (by_allocator_count_[a] > 0)
        functions.push_back({kAllocatorNames[a], SIZE_MAX, by_allocator_count_[a], by_allocator_bytes_[a]});
    sort_largest_first(functions);
    emit_table(host, &data, "Allocations by function", "Allocations", "Bytes allocated", functions, false);

    StackRows at_peak(data);
    if (has_peak)
      for (const auto& [group, held] : best_.by_group)
        if (held.count > 0) at_peak.add(group, static_cast<double>(held.count), static_cast<double>(held.bytes));
    emit_table(host, &data, "In use at the peak, by call stack", "Allocations", "Bytes in use", at_peak.sorted(),
               true);
  }

 private:
  struct Held {
    int64_t count = 0;
    int64_t bytes = 0;
  };
  struct Peak {
    uint64_t peak_bytes = 0, peak_live = 0, peak_time = 0;
    uint32_t experiment = 0;
    std::vector<std::pair<uint32_t, Held>> by_group;  // the stacks' share at the peak
  };

  static void change(std::vector<Held>& by_group, uint32_t group, int64_t count, int64_t bytes) {
    if (by_group.size() <= group) by_group.resize(group + 1);
    by_group[group].count += count;
    by_group[group].bytes += bytes;
  }
  void change_group(uint32_t group, int64_t count, int64_t bytes) { change(in_use_by_group_, group, count, bytes); }
  // The op's event came no later than the one that reached the highest
  // bytes in use (that one included).
  bool before_highest(const HeapOp& op) const {
    return highest_ != 0 && (op.highest < highest_ || (op.highest == highest_ && op.raised_highest));
  }
  // The peak's state is the current one until the next change that is not
  // a new peak: copied then.
  void settle_peak() {
    if (!peak_unsettled_) return;
    peak_unsettled_ = false;
    current_.by_group.clear();
    for (uint32_t g = 0; g < in_use_by_group_.size(); ++g)
      if (in_use_by_group_[g].count > 0) current_.by_group.emplace_back(g, in_use_by_group_[g]);
  }

  double allocations_ = 0, bytes_ = 0, frees_ = 0, unmatched_ = 0, leaks_ = 0, leaked_ = 0;
  double histogram_count_[65] = {}, histogram_bytes_[65] = {};
  double by_allocator_count_[kAllocatorCount] = {}, by_allocator_bytes_[kAllocatorCount] = {};
  uint64_t in_use_ = 0, live_ = 0;
  std::vector<Held> in_use_by_group_;
  bool peak_unsettled_ = false;
  Peak current_, best_;
  bool have_best_ = false;
  const HeapData& data_;
  uint64_t highest_ = 0;  // the experiment's, recorded (0: not)
  bool all_selected_ = true;
  uint64_t exact_in_use_ = 0, exact_live_ = 0, exact_time_ = 0;  // of the ops before the highest
  std::vector<Held> exact_by_group_;
};

}  // namespace

// Rows per stack of a count and a bytes metric: what the session decoded
// already when it holds the events (an earlier view's), else `read` from
// the records.
template <typename Read>
bool rows_of(HeapData& data, StackRows& rows, const char* count_metric, const char* bytes_metric, Read&& read) {
  const auto add = [&](uint32_t group, uint64_t count, uint64_t bytes) {
    rows.add(group, static_cast<double>(count), static_cast<double>(bytes));
  };
  return data.sums_from_session(count_metric, bytes_metric, add) || read(add);
}

int run_allocs_view(const lumen_view_host* host, char* error, size_t error_size) {
  HeapData data(*host);
  StackRows rows(data);
  std::string problem;
  const bool read = rows_of(data, rows, "heapalloccnt", "heapallocbytes", [&](const auto& add) {
    return data.allocations_by_stack(add, problem);
  });
  if (!read) return fail(problem, error, error_size);
  host->summary(host->context, "allocations", "Allocations", rows.total_count(), LUMEN_UNIT_COUNT);
  host->summary(host->context, "bytes", "Bytes allocated", rows.total_bytes(), LUMEN_UNIT_BYTES);
  emit_table(*host, &data, "Allocations by call stack", "Allocations", "Bytes allocated", rows.sorted(), true);
  return 0;
}

int run_leaks_view(const lumen_view_host* host, char* error, size_t error_size) {
  HeapData data(*host);
  StackRows rows(data);
  std::string problem;
  const bool read = rows_of(data, rows, "heapleakcnt", "heapleakbytes", [&](const auto&) {
    return data.live_at_end(
        [&](const HeapOp& op) {
          if (op.selected) rows.add(op);
        },
        problem);
  });
  if (!read) return fail(problem, error, error_size);
  host->summary(host->context, "leaks", "Leaks", rows.total_count(), LUMEN_UNIT_COUNT);
  host->summary(host->context, "bytes", "Bytes leaked", rows.total_bytes(), LUMEN_UNIT_BYTES);
  emit_table(*host, &data, "Leaks by call stack", "Leaks", "Bytes leaked", rows.sorted(), true);
  return 0;
}

int run_heap_view(const lumen_view_host* host, char* error, size_t error_size) {
  HeapData data(*host);
  HeapStatistics stats(data);
  std::string problem;
  if (!data.sweep(stats, problem)) return fail(problem, error, error_size);
  stats.report(*host, data);
  return 0;
}

}  // namespace lumen::heap
