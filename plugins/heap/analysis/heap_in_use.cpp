// -heap_in_use: the bytes the selected allocations hold over time, per
// experiment, in time bins: the highest value within each bin and the value
// at its end, with the allocations live then. One sweep of the ops in time
// order (heap_data.h). The bins start a millisecond wide and double, pairs
// merged, whenever a run would need more than kMaxBins: memory stays bounded
// whatever the length of the run, and every bin is whole milliseconds.
#include <lumen/analysis_plugin.h>
#include <lumen/analysis_support.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "heap_data.h"
#include "heap_views.h"

namespace lumen::heap {
namespace {

constexpr uint64_t kFirstBinNs = 1'000'000;
constexpr size_t kMaxBins = 2048;

struct Bin {
  uint64_t highest = 0;
  uint64_t at_end = 0;
  uint64_t live_at_end = 0;
  bool changed = false;  // else it holds what the bin before it ended with
};

struct Series {
  uint32_t experiment = 0;
  uint64_t start_ns = 0;
  uint64_t bin_ns = kFirstBinNs;
  std::vector<Bin> bins;
};

// What the view shows: kept by the session while the selection stays, so
// that asking again (the analyzer's chart) does not sweep the ops again.
struct InUseSeries {
  std::vector<Series> series;
};

class InUseOverTime final : public HeapVisitor {
 public:
  InUseOverTime(const HeapData& data, InUseSeries& into) : data_(data), series_(into.series) {}

  void experiment_begin(uint32_t experiment) override {
    series_.push_back({experiment, data_.start_ns(experiment), kFirstBinNs, {}});
    in_use_ = live_ = 0;
  }
  void allocated(const HeapOp& op) override {
    if (!op.selected) return;
    in_use_ += op.size;
    live_ += 1;
    note(op.time_ns);
  }
  void released(const HeapOp& allocation, const HeapOp& by) override {
    if (!allocation.selected) return;
    in_use_ -= allocation.size;
    live_ -= 1;
    note(by.time_ns);
  }

  static void report(const lumen_view_host& host, const std::vector<Series>& series) {
    uint64_t highest = 0;
    for (const Series& s : series)
      for (const Bin& b : s.bins) highest = std::max(highest, b.highest);
    host.summary(host.context, "highest", "Highest bytes in use", static_cast<double>(highest), LUMEN_UNIT_BYTES);
    host.summary(host.context, "bin", "Bin width", series.empty() ? 0.0 : static_cast<double>(series[0].bin_ns),
                 LUMEN_UNIT_NANOSECONDS);
    const lumen_view_column columns[] = {
        {"experiment", "Experiment", LUMEN_UNIT_COUNT}, {"start", "Start", LUMEN_UNIT_NANOSECONDS},
        {"end", "End", LUMEN_UNIT_NANOSECONDS},         {"highest", "Highest in Use", LUMEN_UNIT_BYTES},
        {"at_end", "In Use at End", LUMEN_UNIT_BYTES},  {"live", "Live Allocations at End", LUMEN_UNIT_COUNT},
    };
    host.table_begin(host.context, "Bytes in use over time, since collection start", columns, std::size(columns));
    for (const Series& s : series) {
      Bin previous;
      for (size_t i = 0; i < s.bins.size(); ++i) {
        const Bin bin = s.bins[i].changed ? s.bins[i] : Bin{previous.at_end, previous.at_end, previous.live_at_end, false};
        previous = bin;
        const double start = static_cast<double>(i * s.bin_ns);
        const double values[] = {static_cast<double>(s.experiment + 1), start, start + static_cast<double>(s.bin_ns),
                                 static_cast<double>(bin.highest),      static_cast<double>(bin.at_end),
                                 static_cast<double>(bin.live_at_end)};
        char name[64];
        std::snprintf(name, sizeof name, "%.3f s", start / 1e9);
        host.table_row(host.context, name, values, LUMEN_NO_STACK);
      }
    }
  }

 private:
  void note(uint64_t time_ns) {
    Series& s = series_.back();
    if (s.start_ns == 0 || time_ns < s.start_ns) {
      if (s.bins.empty()) s.start_ns = time_ns;
      else time_ns = s.start_ns;  // before the start the series has: its first bin
    }
    size_t index = static_cast<size_t>((time_ns - s.start_ns) / s.bin_ns);
    while (index >= kMaxBins) {
      coarsen(s);
      index = static_cast<size_t>((time_ns - s.start_ns) / s.bin_ns);
    }
    if (s.bins.size() <= index) s.bins.resize(index + 1);
    Bin& bin = s.bins[index];
    bin.highest = bin.changed ? std::max(bin.highest, in_use_) : std::max(in_use_, carried(s, index));
    bin.at_end = in_use_;
    bin.live_at_end = live_;
    bin.changed = true;
  }
  // What bin `index` held when it began: the value the last changed bin
  // before it ended with.
  static uint64_t carried(const Series& s, size_t index) {
    for (size_t i = index; i-- > 0;)
      if (s.bins[i].changed) return s.bins[i].at_end;
    return 0;
  }
  static void coarsen(Series& s) {
    std::vector<Bin> merged((s.bins.size() + 1) / 2);
    for (size_t i = 0; i < s.bins.size(); ++i) {
      Bin& into = merged[i / 2];
      const Bin& from = s.bins[i];
      if (!from.changed) continue;
      into.highest = into.changed ? std::max(into.highest, from.highest) : from.highest;
      into.at_end = from.at_end;
      into.live_at_end = from.live_at_end;
      into.changed = true;
    }
    s.bins = std::move(merged);
    s.bin_ns *= 2;
  }

  const HeapData& data_;
  std::vector<Series>& series_;
  uint64_t in_use_ = 0, live_ = 0;
};

}  // namespace

int run_heap_in_use_view(const lumen_view_host* host, char* error, size_t error_size) {
  std::unique_ptr<InUseSeries> own;
  std::string problem;
  const InUseSeries* read = kept_reading(host, "bytes in use over time", own, problem, [&](InUseSeries& into) {
    HeapData data(*host);
    InUseOverTime visitor(data, into);
    std::string why;
    return data.sweep(visitor, why) ? std::string() : why.empty() ? "the heap records could not be read" : why;
  });
  if (read == nullptr) {
    std::snprintf(error, error_size, "%s", problem.c_str());
    return 1;
  }
  InUseOverTime::report(*host, read->series);
  return 0;
}

}  // namespace lumen::heap
