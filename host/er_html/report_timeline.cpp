#include "report_timeline.h"

#include <algorithm>

#include "export_frames.h"

namespace lumen::er_html {

namespace {

// The run's extent from the experiments' sample points (the first is taken
// at collection start, the last at its end), known before any event is read.
std::pair<uint64_t, uint64_t> recorded_extent(const std::vector<std::unique_ptr<analysis::Experiment>>& experiments) {
  uint64_t first = UINT64_MAX, last = 0;
  for (const auto& experiment : experiments) {
    const analysis::SampleTable& samples = experiment->samples();
    if (samples.end_ns() <= samples.start_ns()) return {UINT64_MAX, 0};
    first = std::min(first, samples.start_ns());
    last = std::max(last, samples.end_ns());
  }
  return {first, last};
}

}  // namespace

TimelineBins::TimelineBins(const std::vector<std::unique_ptr<analysis::Experiment>>& experiments,
                           const analysis::MetricRegistry& registry, analysis::EventFilter filter, size_t bins,
                           bool by_stack)
    : experiments_(experiments), registry_(registry), filter_(std::move(filter)), bins_(std::max<size_t>(1, bins)),
      by_stack_(by_stack) {
  std::tie(first_, last_) = recorded_extent(experiments);
  observing_ = first_ <= last_;
  if (observing_) bin_ns_ = std::max(1.0, static_cast<double>(last_ - first_ + 1) / static_cast<double>(bins_));
  observer_.event = [this](size_t e, const analysis::DataFile& file, const lumen_event& event, uint32_t entry) {
    observed_ = true;
    add_event(e, file, event, entry);
  };
  observer_.span = [this](size_t e, const analysis::DataFile& file, const lumen_span& span) {
    observed_ = true;
    if (exporting::span_selected(filter_, e, span)) add_span(e, file, span);
  };
  observer_.level = [this](size_t e, const analysis::DataFile&, const char* name, lumen_metric_unit unit,
                           uint64_t time_ns, int64_t value) {
    observed_ = true;
    add_level(e, name, unit, time_ns, value);
  };
}

size_t TimelineBins::bin_of(uint64_t t) const {
  // An event a little outside the recorded extent counts in the edge bin.
  return t <= first_ ? 0 : std::min(bins_ - 1, static_cast<size_t>(static_cast<double>(t - first_) / bin_ns_));
}

const exporting::FileShape& TimelineBins::shape(const analysis::DataFile& file) {
  auto it = shapes_.find(&file);
  if (it == shapes_.end()) it = shapes_.emplace(&file, exporting::shape_of(file, registry_)).first;
  return it->second;
}

std::map<size_t, double>& TimelineBins::series(LaneKey lane, const std::string& name, uint32_t entry) {
  if (by_stack_) return by_entry_[{entry, lane, name}];
  return lanes_[lane][name];
}

void TimelineBins::add_time(std::map<size_t, double>& bins, uint64_t begin, uint64_t end) {
  const size_t first_bin = bin_of(begin), last_bin = bin_of(end);
  for (size_t b = first_bin; b <= last_bin; ++b) {
    const double lo = b == first_bin ? static_cast<double>(begin) : first_ + b * bin_ns_;
    const double hi = b == last_bin ? static_cast<double>(end) : first_ + (b + 1) * bin_ns_;
    bins[b] += std::max(0.0, hi - lo);
  }
}

// A clock sample adds its CPU time to its bin; a traced call adds its time
// to every bin it spans; any other event adds one to its bin.
void TimelineBins::add_event(size_t e, const analysis::DataFile& file, const lumen_event& event, uint32_t entry) {
  const exporting::FileShape& s = shape(file);
  auto& bins = series({e, event.thread_id}, file.plugin, entry);
  if (s.shape == exporting::EventShape::Point) {
    kinds_[file.plugin] = "count";
    bins[bin_of(event.time_ns)] += 1;
    return;
  }
  const uint64_t duration = std::max<int64_t>(event.values[s.duration_value], 0);
  if (s.shape == exporting::EventShape::Sample) {
    kinds_[file.plugin] = "cpu";
    bins[bin_of(event.time_ns)] += static_cast<double>(duration);
    return;
  }
  kinds_[file.plugin] = "call";
  add_time(bins, event.time_ns - std::min(duration, event.time_ns), event.time_ns);
}

void TimelineBins::add_span(size_t e, const analysis::DataFile& file, const lumen_span& span) {
  const std::string name = span.name != nullptr ? span.name : file.plugin;
  kinds_[name] = "span";
  add_time(lanes_[{e, span.thread_id}][name], span.begin_ns, span.end_ns);
  span_counts_[{e, span.thread_id}][name] += 1;
}

// A level's values come in time order: a bin's highest value is the
// highest it took in the bin, or the one it entered the bin with; the
// value at its end holds until the next bin with a change.
void TimelineBins::add_level(size_t e, const char* name, lumen_metric_unit unit, uint64_t time_ns, int64_t value) {
  LevelBins& level = levels_[{e, name}];
  level.unit = unit;
  const auto [it, inserted] = level.bins.try_emplace(bin_of(time_ns), level.current, level.current);
  it->second.first = std::max(it->second.first, value);
  it->second.second = value;
  level.current = value;
  level.peak = std::max(level.peak, value);
}

void TimelineBins::walk_events(const exporting::ExportInput& input) {
  if (first_ > last_) {
    exporting::for_each_selected_event(input, [&](size_t, const analysis::DataFile& file, const lumen_event& event,
                                                  uint32_t) {
      const auto& s = shape(file);
      const uint64_t duration =
          s.shape == exporting::EventShape::Point ? 0 : std::max<int64_t>(event.values[s.duration_value], 0);
      first_ = std::min(first_, event.time_ns - std::min(duration, event.time_ns));
      last_ = std::max(last_, event.time_ns);
    });
    if (first_ > last_) return;
    bin_ns_ = std::max(1.0, static_cast<double>(last_ - first_ + 1) / static_cast<double>(bins_));
  }
  // The events selected are those the profile kept: no stack waits for its fate.
  by_stack_ = false;
  lanes_.clear();
  span_counts_.clear();
  levels_.clear();
  exporting::SelectedTimeline timeline;
  timeline.span = [&](size_t e, const analysis::DataFile& file, const lumen_span& span) { add_span(e, file, span); };
  timeline.level = [&](size_t e, const analysis::DataFile&, const char* name, lumen_metric_unit unit, uint64_t time_ns,
                       int64_t value) { add_level(e, name, unit, time_ns, value); };
  exporting::for_each_selected_event(
      input,
      [&](size_t e, const analysis::DataFile& file, const lumen_event& event, uint32_t stack) {
        add_event(e, file, event, stack);
      },
      &timeline);
}

nlohmann::json TimelineBins::json(const exporting::ExportInput& input) {
  if (!observing_ || !observed_) walk_events(input);
  for (auto& [key, bins] : by_entry_) {
    if (input.profile.stack_of_entry(std::get<0>(key)) == analysis::StackProfile::kDroppedRow) continue;
    auto& to = lanes_[std::get<1>(key)][std::get<2>(key)];
    for (const auto& [bin, v] : bins) to[bin] += v;
  }
  by_entry_.clear();
  nlohmann::json result = {{"lanes", nlohmann::json::array()},
                           {"levels", nlohmann::json::array()},
                           {"bins", bins_},
                           {"start_ns", 0},
                           {"bin_ns", 0}};
  if (first_ > last_) return result;
  result["start_ns"] = first_;
  result["bin_ns"] = bin_ns_;
  result["kinds"] = kinds_;
  for (const auto& [key, lane] : lanes_) {
    const analysis::Experiment& experiment = *experiments_[key.first];
    nlohmann::json series = nlohmann::json::object();
    for (const auto& [name, values] : lane) {
      nlohmann::json sparse = nlohmann::json::array();  // [bin, value] pairs
      for (const auto& [bin, v] : values) sparse.push_back({bin, v});
      series[name] = sparse;
    }
    const auto rank = exporting::mpi_rank(experiment);
    const auto counts = span_counts_.find(key);
    result["lanes"].push_back({{"experiment", key.first + 1},
                               {"process", exporting::process_label(experiment)},
                               {"rank", rank ? nlohmann::json(*rank) : nlohmann::json()},
                               {"thread", experiment.thread_number(key.second)},
                               {"tid", key.second},
                               {"series", series},
                               {"spans", counts != span_counts_.end() ? nlohmann::json(counts->second)
                                                                      : nlohmann::json::object()}});
  }
  for (const auto& [key, level] : levels_) {
    nlohmann::json sparse = nlohmann::json::array();
    for (const auto& [bin, v] : level.bins) sparse.push_back({bin, v.first, v.second});  // [bin, highest, at end]
    const analysis::Experiment& experiment = *experiments_[key.first];
    result["levels"].push_back({{"experiment", key.first + 1},
                                {"process", exporting::process_label(experiment)},
                                {"name", key.second},
                                {"unit", exporting::unit_word(level.unit)},
                                {"peak", level.peak},
                                {"points", sparse}});
  }
  return result;
}

}  // namespace lumen::er_html
