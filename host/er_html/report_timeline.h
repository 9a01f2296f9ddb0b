// The report's timeline, binned while the session's profile is built (one
// pass over the events for both): per thread (per rank and thread for
// MPI), each plugin's events summed into equal bins of the run; the spans
// decoders draw (OpenMP parallel regions) as time per bin and a count per
// thread; each level (heap bytes in use) per process as its highest value
// in each bin. A report of ten million events stays the size of its bins.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "export_formats.h"
#include "selected_events.h"

namespace lumen::er_html {

class TimelineBins {
 public:
  // `by_stack`: the session drops stacks by function (a -filters clause),
  // so an event's bin waits for its stack's fate.
  TimelineBins(const std::vector<std::unique_ptr<analysis::Experiment>>& experiments,
               const analysis::MetricRegistry& registry, analysis::EventFilter filter, size_t bins, bool by_stack);

  // What to hand to Session::observe_next_profile; null when the run's
  // extent is not recorded (an experiment without its first and last sample
  // points): then json() walks the events itself, after finding the extent.
  const analysis::ProfileObserver* observer() const { return observing_ ? &observer_ : nullptr; }

  // The timeline, once the profile was built (with observer(), or not).
  nlohmann::json json(const exporting::ExportInput& input);

 private:
  using LaneKey = std::pair<size_t, uint32_t>;  // (experiment, kernel thread id)
  struct LevelBins {
    lumen_metric_unit unit = LUMEN_UNIT_COUNT;
    int64_t current = 0, peak = 0;
    std::map<size_t, std::pair<int64_t, int64_t>> bins;  // bin -> (highest value in it, value at its end)
  };

  size_t bin_of(uint64_t time_ns) const;
  const exporting::FileShape& shape(const analysis::DataFile& file);
  void add_event(size_t experiment, const analysis::DataFile& file, const lumen_event& event, uint32_t entry);
  void add_span(size_t experiment, const analysis::DataFile& file, const lumen_span& span);
  void add_level(size_t experiment, const char* name, lumen_metric_unit unit, uint64_t time_ns, int64_t value);
  // Time [begin, end] spread over its bins; the edge bins take what lies
  // beyond the extent, so the time is kept whole.
  void add_time(std::map<size_t, double>& series, uint64_t begin, uint64_t end);
  std::map<size_t, double>& series(LaneKey lane, const std::string& name, uint32_t entry);
  void walk_events(const exporting::ExportInput& input);

  const std::vector<std::unique_ptr<analysis::Experiment>>& experiments_;
  const analysis::MetricRegistry& registry_;
  analysis::EventFilter filter_;
  size_t bins_;
  bool by_stack_;
  uint64_t first_ = UINT64_MAX, last_ = 0;
  double bin_ns_ = 1;
  bool observing_ = false;
  bool observed_ = false;  // the observer saw the pass (else the profile was built before)
  analysis::ProfileObserver observer_;
  std::map<const analysis::DataFile*, exporting::FileShape> shapes_;
  std::map<std::string, std::string> kinds_;  // series -> "cpu", "call", "count", "span"
  std::map<LaneKey, std::map<std::string, std::map<size_t, double>>> lanes_;
  // With by_stack: (profile entry, lane, series) -> bins, folded into lanes_ for the entries kept.
  std::map<std::tuple<uint32_t, LaneKey, std::string>, std::map<size_t, double>> by_entry_;
  std::map<LaneKey, std::map<std::string, uint64_t>> span_counts_;
  std::map<std::pair<size_t, std::string>, LevelBins> levels_;
};

}  // namespace lumen::er_html
