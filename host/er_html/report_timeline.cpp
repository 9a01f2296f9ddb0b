// The timeline's input: per thread, each plugin's events summed into equal
// bins of the run, in one pass over the events, so a report of ten million
// events stays the size of its bins. A clock sample adds its CPU time to its bin; a traced call adds
// its time to every bin it spans; any other event adds one to its bin.
#include <algorithm>
#include <functional>
#include <map>
#include <tuple>

#include "export_frames.h"
#include "report_data.h"
#include "selected_events.h"

namespace lumen::er_html {

namespace {

struct Lane {
  std::map<std::string, std::map<size_t, double>> series;  // plugin -> bin -> value
};

using ShapeOf = std::function<const exporting::FileShape&(const analysis::DataFile&)>;

// The run's extent from the experiments' sample points (the first is taken
// at collection start, the last at its end), so the events are decoded once;
// an experiment without both falls back to a pass over the events.
std::pair<uint64_t, uint64_t> recorded_extent(const exporting::ExportInput& input) {
  uint64_t first = UINT64_MAX, last = 0;
  for (const auto& experiment : input.experiments) {
    const analysis::SampleTable& samples = experiment->samples();
    if (samples.end_ns() <= samples.start_ns()) return {UINT64_MAX, 0};
    first = std::min(first, samples.start_ns());
    last = std::max(last, samples.end_ns());
  }
  return {first, last};
}

std::pair<uint64_t, uint64_t> event_extent(const exporting::ExportInput& input, const ShapeOf& shape) {
  uint64_t first = UINT64_MAX, last = 0;
  exporting::for_each_selected_event(input, [&](size_t, const analysis::DataFile& file, const lumen_event& event, uint32_t) {
    const auto& s = shape(file);
    const uint64_t duration = s.shape == exporting::EventShape::Point ? 0 : std::max<int64_t>(event.values[s.duration_value], 0);
    first = std::min(first, event.time_ns - std::min(duration, event.time_ns));
    last = std::max(last, event.time_ns);
  });
  return {first, last};
}

}  // namespace

nlohmann::json timeline(const exporting::ExportInput& input, size_t bins) {
  std::map<const analysis::DataFile*, exporting::FileShape> shapes;
  const ShapeOf shape = [&](const analysis::DataFile& file) -> const exporting::FileShape& {
    auto it = shapes.find(&file);
    if (it == shapes.end()) it = shapes.emplace(&file, exporting::shape_of(file, input.registry)).first;
    return it->second;
  };
  auto [first, last] = recorded_extent(input);
  if (first > last) std::tie(first, last) = event_extent(input, shape);
  nlohmann::json result = {{"lanes", nlohmann::json::array()}, {"bins", bins}, {"start_ns", 0}, {"bin_ns", 0}};
  if (first > last) return result;
  const double bin_ns = std::max(1.0, static_cast<double>(last - first + 1) / static_cast<double>(bins));
  std::map<std::pair<size_t, uint32_t>, Lane> lanes;
  std::map<std::string, std::string> kinds;
  exporting::for_each_selected_event(input, [&](size_t e, const analysis::DataFile& file, const lumen_event& event, uint32_t) {
    const auto& s = shape(file);
    auto& series = lanes[{e, event.thread_id}].series[file.plugin];
    // An event a little outside the recorded extent counts in the edge bin.
    const auto bin_of = [&](uint64_t t) {
      return t <= first ? 0 : std::min(bins - 1, static_cast<size_t>(static_cast<double>(t - first) / bin_ns));
    };
    if (s.shape == exporting::EventShape::Point) {
      kinds[file.plugin] = "count";
      series[bin_of(event.time_ns)] += 1;
      return;
    }
    const uint64_t duration = std::max<int64_t>(event.values[s.duration_value], 0);
    if (s.shape == exporting::EventShape::Sample) {
      kinds[file.plugin] = "cpu";
      series[bin_of(event.time_ns)] += static_cast<double>(duration);
      return;
    }
    kinds[file.plugin] = "call";
    const uint64_t start = event.time_ns - std::min(duration, event.time_ns);
    const size_t first_bin = bin_of(start), last_bin = bin_of(event.time_ns);
    for (size_t b = first_bin; b <= last_bin; ++b) {
      // The edge bins take what lies beyond the extent, so a call's time is kept whole.
      const double lo = b == first_bin ? static_cast<double>(start) : first + b * bin_ns;
      const double hi = b == last_bin ? static_cast<double>(event.time_ns) : first + (b + 1) * bin_ns;
      series[b] += std::max(0.0, hi - lo);
    }
  });
  result["start_ns"] = first;
  result["bin_ns"] = bin_ns;
  result["kinds"] = kinds;
  for (const auto& [key, lane] : lanes) {
    const analysis::Experiment& experiment = *input.experiments[key.first];
    nlohmann::json series = nlohmann::json::object();
    for (const auto& [plugin, values] : lane.series) {
      nlohmann::json sparse = nlohmann::json::array();  // [bin, value] pairs
      for (const auto& [bin, v] : values) sparse.push_back({bin, v});
      series[plugin] = sparse;
    }
    const auto rank = exporting::mpi_rank(experiment);
    result["lanes"].push_back({{"experiment", key.first + 1},
                               {"process", exporting::process_label(experiment)},
                               {"rank", rank ? nlohmann::json(*rank) : nlohmann::json()},
                               {"thread", experiment.thread_number(key.second)},
                               {"tid", key.second},
                               {"series", series}});
  }
  return result;
}

}  // namespace lumen::er_html
