#include "event_list.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "export_frames.h"
#include "metric_cells.h"
#include "selected_events.h"

namespace lumen::exporting {

namespace {

// Without -limit: enough to read, few enough for a page to draw.
constexpr size_t kDefaultListed = 1000;

struct Listed {
  int64_t order_ns;  // on the clock the experiments share: the order of the list
  uint64_t time_ns;  // the experiment's own
  uint64_t seen;     // the visit's order, for equal times
  uint32_t experiment;
  uint32_t thread_id;
  int32_t cpu;
  uint32_t stack;
  const analysis::DataFile* file;
  int64_t duration_ns;
  analysis::Values values;  // by registry index
};

bool earlier(const Listed& a, const Listed& b) {
  return std::tie(a.order_ns, a.experiment, a.thread_id, a.seen) < std::tie(b.order_ns, b.experiment, b.thread_id, b.seen);
}

// Seconds to the nanosecond: a time a filter (TSTAMP, time in A-B) can name exactly.
std::string nanoseconds_text(int64_t ns) {
  ns = std::max<int64_t>(ns, 0);
  char text[40];
  std::snprintf(text, sizeof text, "%lld.%09lld", static_cast<long long>(ns / 1'000'000'000),
                static_cast<long long>(ns % 1'000'000'000));
  return text;
}

}  // namespace

analysis::Document event_list(const ExportInput& input, const analysis::ViewRequest& request,
                              std::optional<size_t> limit) {
  const size_t most = limit.value_or(kDefaultListed);
  const analysis::MetricRegistry& registry = input.registry;
  // A heap with the latest listed on top, so that an earlier event takes its place.
  std::vector<Listed> events;
  std::map<const analysis::DataFile*, FileShape> shapes;
  uint64_t selected = 0;
  for_each_selected_event(input, [&](size_t e, const analysis::DataFile& file, const lumen_event& event, uint32_t stack) {
    const analysis::Experiment& experiment = *input.experiments[e];
    Listed listed{static_cast<int64_t>(event.time_ns) + experiment.clock_shift_ns(), event.time_ns, selected++,
                  static_cast<uint32_t>(e), event.thread_id, event.cpu, stack, &file, 0, {}};
    if (most == 0 || (events.size() == most && !earlier(listed, events.front()))) return;
    auto shape = shapes.find(&file);
    if (shape == shapes.end()) shape = shapes.emplace(&file, shape_of(file, registry)).first;
    if (shape->second.shape != EventShape::Point) listed.duration_ns = event.values[shape->second.duration_value];
    listed.values.assign(registry.size(), 0);
    for (size_t v = 0; v < file.metric_index.size(); ++v)
      if (registry.metrics().at(file.metric_index[v]).split_of.empty()) listed.values[file.metric_index[v]] += event.values[v];
    events.push_back(std::move(listed));
    std::push_heap(events.begin(), events.end(), earlier);
    if (events.size() > most) {
      std::pop_heap(events.begin(), events.end(), earlier);
      events.pop_back();
    }
  });
  std::sort_heap(events.begin(), events.end(), earlier);

  const analysis::MetricSelection once = analysis::exclusive_once(request.metrics);
  analysis::ViewTable table;
  table.view = "event_list";
  table.title = "Events in time order (each with its recorded values, its span ending at its time, and its call stack)";
  table.columns = analysis::columns_of(once, registry);
  table.name_position = table.columns.size();
  table.stacks = true;
  analysis::Values total(registry.size(), 0);
  for (const Listed& l : events)
    for (size_t m = 0; m < total.size(); ++m) total[m] += l.values[m];
  for (const Listed& l : events) {
    const analysis::Experiment& experiment = *input.experiments[l.experiment];
    const auto frames = input.profile.frames(input.profile.stacks()[l.stack]);
    analysis::ViewRow row;
    const analysis::FunctionId leaf = frames.empty() ? analysis::kUnknownFunction : frames.front();
    row.name = function_name(input, leaf);
    row.load_object = input.structure.object(input.structure.function(leaf).object).name;
    row.values = analysis::row_values(once, registry, &l.values, &l.values, total);
    const int64_t since_start = static_cast<int64_t>(l.time_ns) - static_cast<int64_t>(experiment.start_ns());
    row.fields = {{"experiment", std::to_string(l.experiment + 1)},
                  {"thread", std::to_string(experiment.thread_number(l.thread_id))},
                  {"tid", std::to_string(l.thread_id)},
                  {"cpu", std::to_string(l.cpu)},
                  {"time", nanoseconds_text(since_start)},
                  {"tstamp", std::to_string(std::max<int64_t>(since_start, 0))},
                  {"span", nanoseconds_text(l.duration_ns)},
                  {"data", l.file->plugin}};
    for (const analysis::FunctionId f : frames)
      row.stack.push_back({function_name(input, f), input.structure.object(input.structure.function(f).object).name});
    table.rows.push_back(std::move(row));
  }
  analysis::Record summary;
  summary.add_number("selected", "Events selected", static_cast<double>(selected));
  summary.add_number("listed", "Events listed (the first in time; -limit N lists N)", static_cast<double>(events.size()));
  return analysis::Document{"event_list", "",
                            {analysis::RecordList{"summary", "", "", analysis::RecordLayout::Members, {std::move(summary)}}},
                            {std::move(table)}, true};
}

}  // namespace lumen::exporting
