// Chrome's trace-event JSON (the format chrome://tracing and Perfetto open):
// a process per experiment (named by its MPI rank where it has one), a
// track per thread, and per event of the profile: a complete event ("X")
// for a traced call (its wait or call time, ending at its time), an
// instant ("i") for a clock sample or any other event, with the exported
// metrics' values as arguments. What decoders draw beside their events
// follows: a span (an OpenMP parallel region as one thread was in it) is a
// complete event whose arguments say "timeline": "span", a level (heap
// bytes in use) a counter ("C") of its process.
#include <algorithm>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>

#include "export_formats.h"
#include "export_frames.h"
#include "selected_events.h"

namespace lumen::exporting {

namespace {

// Trace-event times are microseconds; three decimals keep nanoseconds.
std::string microseconds(int64_t ns) {
  char text[40];
  std::snprintf(text, sizeof text, "%.3f", static_cast<double>(ns) / 1000.0);
  return text;
}

struct LevelPoint {
  uint64_t time_ns;
  int64_t value;
  size_t order;  // the decoder's, for equal times
};

class TraceWriter {
 public:
  TraceWriter(const ExportInput& input, std::ostream& out) : input_(input), out_(out) {
    origin_ns_ = UINT64_MAX;
    for (const auto& e : input.experiments)
      if (e->start_ns() != 0) origin_ns_ = std::min(origin_ns_, e->start_ns());
    if (origin_ns_ == UINT64_MAX) origin_ns_ = 0;
  }

  void write() {
    out_ << "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"exporter\":\"lumen er_print -export chrome\"},"
            "\"traceEvents\":[\n";
    SelectedTimeline timeline;
    timeline.span = [&](size_t e, const analysis::DataFile& file, const lumen_span& span) { write_span(e, file, span); };
    timeline.level = [&](size_t e, const analysis::DataFile&, const char* name, lumen_metric_unit unit,
                         uint64_t time_ns, int64_t value) {
      auto& points = levels_[{e, name}];
      points.unit = unit;
      points.points.push_back({time_ns, value, points.points.size()});
    };
    for_each_selected_event(
        input_,
        [&](size_t e, const analysis::DataFile& file, const lumen_event& event, uint32_t stack) {
          write_event(e, file, event, stack);
        },
        &timeline);
    write_levels();
    write_names();
    out_ << "]}\n";
  }

 private:
  void separator() {
    if (!first_) out_ << ",\n";
    first_ = false;
  }

  const FileShape& shape(const analysis::DataFile& file) {
    const auto it = shapes_.find(&file);
    if (it != shapes_.end()) return it->second;
    return shapes_.emplace(&file, shape_of(file, input_.registry)).first->second;
  }

  void write_event(size_t e, const analysis::DataFile& file, const lumen_event& event, uint32_t stack) {
    const analysis::Experiment& experiment = *input_.experiments[e];
    const uint64_t pid = process_id(experiment, e);
    threads_.insert({e, event.thread_id});
    const auto frames = input_.profile.frames(input_.profile.stacks()[stack]);
    const std::string& leaf = function_name(input_, frames.empty() ? analysis::kUnknownFunction : frames.front());
    const FileShape& s = shape(file);
    const int64_t end = static_cast<int64_t>(event.time_ns - origin_ns_);
    separator();
    out_ << "{\"name\":" << json_string(leaf) << ",\"cat\":" << json_string(file.plugin) << ",\"pid\":" << pid
         << ",\"tid\":" << event.thread_id;
    if (s.shape == EventShape::Call) {
      const int64_t duration = std::max<int64_t>(event.values[s.duration_value], 0);
      out_ << ",\"ph\":\"X\",\"ts\":" << microseconds(end - duration) << ",\"dur\":" << microseconds(duration);
    } else {
      out_ << ",\"ph\":\"i\",\"s\":\"t\",\"ts\":" << microseconds(end);
    }
    out_ << ",\"args\":{";
    bool first_arg = true;
    for (size_t v = 0; v < file.metric_index.size(); ++v) {
      const analysis::MetricDef& metric = input_.registry.metrics().at(file.metric_index[v]);
      if (!metric.split_of.empty()) continue;
      out_ << (first_arg ? "" : ",") << json_string(metric.keyword) << ":" << event.values[v];
      first_arg = false;
    }
    out_ << (first_arg ? "" : ",") << "\"stack_depth\":" << frames.size() << "}}";
  }

  void write_span(size_t e, const analysis::DataFile& file, const lumen_span& span) {
    const analysis::Experiment& experiment = *input_.experiments[e];
    threads_.insert({e, span.thread_id});
    separator();
    out_ << "{\"name\":" << json_string(span.name != nullptr ? span.name : file.plugin) << ",\"cat\":"
         << json_string(file.plugin) << ",\"pid\":" << process_id(experiment, e) << ",\"tid\":" << span.thread_id
         << ",\"ph\":\"X\",\"ts\":" << microseconds(static_cast<int64_t>(span.begin_ns - origin_ns_))
         << ",\"dur\":" << microseconds(static_cast<int64_t>(span.end_ns - span.begin_ns))
         << ",\"args\":{\"timeline\":\"span\"}}";
  }

  // A level's points in time order (the decoder's order breaks ties), each
  // the value from then on.
  void write_levels() {
    for (auto& [key, level] : levels_) {
      auto& points = level.points;
      std::sort(points.begin(), points.end(), [](const LevelPoint& a, const LevelPoint& b) {
        return a.time_ns != b.time_ns ? a.time_ns < b.time_ns : a.order < b.order;
      });
      const uint64_t pid = process_id(*input_.experiments[key.first], key.first);
      for (size_t i = 0; i < points.size(); ++i) {
        separator();
        out_ << "{\"name\":" << json_string(key.second) << ",\"ph\":\"C\",\"pid\":" << pid
             << ",\"ts\":" << microseconds(static_cast<int64_t>(points[i].time_ns - origin_ns_)) << ",\"args\":{"
             << json_string(unit_word(level.unit)) << ":" << points[i].value << "}}";
      }
    }
  }

  void write_names() {
    for (size_t e = 0; e < input_.experiments.size(); ++e) {
      const analysis::Experiment& experiment = *input_.experiments[e];
      const uint64_t pid = process_id(experiment, e);
      separator();
      out_ << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" << pid << ",\"args\":{\"name\":"
           << json_string(process_label(experiment)) << "}}";
      if (const auto rank = mpi_rank(experiment)) {
        separator();
        out_ << "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" << pid << ",\"args\":{\"sort_index\":" << *rank
             << "}}";
      }
    }
    for (const auto& [e, thread_id] : threads_) {
      const analysis::Experiment& experiment = *input_.experiments[e];
      const uint32_t number = experiment.thread_number(thread_id);
      separator();
      out_ << "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" << process_id(experiment, e) << ",\"tid\":" << thread_id
           << ",\"args\":{\"name\":\"Thread " << number << " (" << thread_id << ")\"}}";
      separator();
      out_ << "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":" << process_id(experiment, e)
           << ",\"tid\":" << thread_id << ",\"args\":{\"sort_index\":" << number << "}}";
    }
  }

  const ExportInput& input_;
  std::ostream& out_;
  uint64_t origin_ns_ = 0;
  bool first_ = true;
  std::map<const analysis::DataFile*, FileShape> shapes_;
  std::set<std::pair<size_t, uint32_t>> threads_;
  struct Level {
    lumen_metric_unit unit = LUMEN_UNIT_COUNT;
    std::vector<LevelPoint> points;
  };
  std::map<std::pair<size_t, std::string>, Level> levels_;
};

}  // namespace

void write_chrome_trace(const ExportInput& input, std::ostream& out) { TraceWriter(input, out).write(); }

}  // namespace lumen::exporting
