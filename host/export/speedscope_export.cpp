// speedscope's file format: per thread a sampled profile of the first
// exported metric (each unique stack once, weighted by its value), per
// thread that made traced calls an evented profile of them (each call's
// stack opened at its start and closed at its end), and per thread and
// kind of span its decoder drew (OpenMP parallel regions) an evented
// profile of those spans, a frame named as the span.
#include <algorithm>
#include <map>
#include <ostream>
#include <unordered_map>

#include "export_formats.h"
#include "export_frames.h"
#include "selected_events.h"

namespace lumen::exporting {

namespace {

struct TracedCall {
  uint64_t start_ns, end_ns;
  uint32_t stack;
};

using ThreadKey = std::pair<size_t, uint32_t>;  // (experiment, kernel thread id)

struct Span {
  uint64_t begin_ns, end_ns;
};

class SpeedscopeWriter {
 public:
  SpeedscopeWriter(const ExportInput& input, std::ostream& out) : input_(input), out_(out) {}

  void write() {
    const analysis::MetricDef& metric = input_.registry.metrics().at(input_.metrics.front());
    std::map<ThreadKey, std::vector<size_t>> shares_of_thread;
    const auto& shares = input_.profile.stack_threads();
    for (size_t i = 0; i < shares.size(); ++i)
      if (input_.profile.stack_thread_values(i)[input_.metrics.front()] != 0)
        shares_of_thread[{input_.profile.stacks()[shares[i].stack].experiment, shares[i].thread_id}].push_back(i);
    collect_calls();

    out_ << "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"exporter\":\"lumen er_print\","
         << "\"name\":" << json_string(process_label(*input_.experiments.front())) << ",\"activeProfileIndex\":0,"
         << "\"profiles\":[";
    bool first = true;
    for (const auto& [thread, indices] : shares_of_thread) {
      out_ << (first ? "\n" : ",\n");
      first = false;
      write_sampled(thread, indices, metric);
    }
    for (auto& [thread, calls] : calls_) {
      out_ << (first ? "\n" : ",\n");
      first = false;
      write_evented(thread, calls);
    }
    for (auto& [key, spans] : spans_) {
      out_ << (first ? "\n" : ",\n");
      first = false;
      write_spans(key.first, key.second, spans);
    }
    out_ << "],\n\"shared\":{\"frames\":[";
    for (size_t i = 0; i < frame_order_.size(); ++i) {
      out_ << (i ? ",\n" : "\n");
      if (!frame_order_[i].span.empty()) {
        out_ << "{\"name\":" << json_string(frame_order_[i].span) << "}";
        continue;
      }
      const analysis::FunctionId f = frame_order_[i].function;
      out_ << "{\"name\":" << json_string(function_name(input_, f));
      if (const auto source = function_source(input_, f))
        out_ << ",\"file\":" << json_string(source->file) << ",\"line\":" << source->line;
      out_ << "}";
    }
    out_ << "]}}\n";
  }

 private:
  size_t frame(analysis::FunctionId f) {
    const auto [it, inserted] = frames_.try_emplace(f, frame_order_.size());
    if (inserted) frame_order_.push_back({f, {}});
    return it->second;
  }
  size_t span_frame(const std::string& name) {
    const auto [it, inserted] = span_frames_.try_emplace(name, frame_order_.size());
    if (inserted) frame_order_.push_back({0, name});
    return it->second;
  }

  std::string thread_name(const ThreadKey& thread) {
    const analysis::Experiment& experiment = *input_.experiments.at(thread.first);
    std::string name = "Thread " + std::to_string(experiment.thread_number(thread.second)) + " (" +
                       std::to_string(thread.second) + ")";
    if (const auto rank = mpi_rank(experiment)) name = "rank " + std::to_string(*rank) + " " + name;
    return name;
  }

  void write_sampled(const ThreadKey& thread, const std::vector<size_t>& indices, const analysis::MetricDef& metric) {
    int64_t total = 0;
    std::string samples, weights;
    for (const size_t i : indices) {
      const int64_t value = input_.profile.stack_thread_values(i)[input_.metrics.front()];
      total += value;
      const auto frames = input_.profile.frames(input_.profile.stacks()[input_.profile.stack_threads()[i].stack]);
      samples += samples.empty() ? "[" : ",[";
      for (size_t k = frames.size(); k-- > 0;)
        samples += std::to_string(frame(frames[k])) + (k ? "," : "");
      samples += "]";
      weights += (weights.empty() ? "" : ",") + std::to_string(value);
    }
    const char* unit = metric.unit == LUMEN_UNIT_NANOSECONDS ? "nanoseconds"
                       : metric.unit == LUMEN_UNIT_BYTES     ? "bytes"
                                                             : "none";
    out_ << "{\"type\":\"sampled\",\"name\":" << json_string(thread_name(thread) + " " + metric.keyword)
         << ",\"unit\":\"" << unit << "\",\"startValue\":0,\"endValue\":" << total << ",\"samples\":[" << samples
         << "],\"weights\":[" << weights << "]}";
  }

  void collect_calls() {
    std::map<const analysis::DataFile*, FileShape> shapes;
    SelectedTimeline timeline;
    timeline.span = [&](size_t e, const analysis::DataFile& file, const lumen_span& span) {
      spans_[{{e, span.thread_id}, span.name != nullptr ? span.name : file.plugin}].push_back(
          {span.begin_ns, span.end_ns});
    };
    for_each_selected_event(
        input_,
        [&](size_t e, const analysis::DataFile& file, const lumen_event& event, uint32_t stack) {
          auto it = shapes.find(&file);
          if (it == shapes.end()) it = shapes.emplace(&file, shape_of(file, input_.registry)).first;
          if (it->second.shape != EventShape::Call) return;
          const uint64_t duration =
              static_cast<uint64_t>(std::max<int64_t>(event.values[it->second.duration_value], 0));
          calls_[{e, event.thread_id}].push_back(
              {event.time_ns - std::min(duration, event.time_ns), event.time_ns, stack});
        },
        &timeline);
  }

  // Spans of one kind on one thread nest (a nested parallel region) or
  // follow each other; one that outlives the span it began in is cut at
  // that span's end, so that frames close in the order they opened.
  void write_spans(const ThreadKey& thread, const std::string& name, std::vector<Span>& spans) {
    std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
      return a.begin_ns != b.begin_ns ? a.begin_ns < b.begin_ns : a.end_ns > b.end_ns;
    });
    const uint64_t origin = spans.front().begin_ns;
    const size_t f = span_frame(name);
    std::string events;
    auto add = [&](char type, uint64_t at) {
      events += std::string(events.empty() ? "" : ",") + "{\"type\":\"" + type + "\",\"frame\":" +
                std::to_string(f) + ",\"at\":" + std::to_string(at - origin) + "}";
    };
    std::vector<uint64_t> open;  // ends of the spans open, innermost last
    uint64_t last = origin;
    for (const Span& span : spans) {
      while (!open.empty() && open.back() <= span.begin_ns) {
        add('C', open.back());
        last = open.back();
        open.pop_back();
      }
      add('O', span.begin_ns);
      open.push_back(open.empty() ? span.end_ns : std::min(span.end_ns, open.back()));
    }
    while (!open.empty()) {
      add('C', open.back());
      last = open.back();
      open.pop_back();
    }
    out_ << "{\"type\":\"evented\",\"name\":" << json_string(thread_name(thread) + " " + name)
         << ",\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":" << (last - origin) << ",\"events\":["
         << events << "]}";
  }

  // Calls of one thread do not overlap (an interposer traces the outermost
  // call); a start before the previous end is moved to it so that every
  // frame closes in the order it opened, as speedscope requires.
  void write_evented(const ThreadKey& thread, std::vector<TracedCall>& calls) {
    std::sort(calls.begin(), calls.end(), [](const auto& a, const auto& b) { return a.start_ns < b.start_ns; });
    const uint64_t origin = calls.front().start_ns;
    uint64_t last_end = origin;
    std::string events;
    auto add = [&](char type, size_t f, uint64_t at) {
      events += std::string(events.empty() ? "" : ",") + "{\"type\":\"" + type + "\",\"frame\":" + std::to_string(f) +
                ",\"at\":" + std::to_string(at - origin) + "}";
    };
    for (const TracedCall& call : calls) {
      const uint64_t start = std::max(call.start_ns, last_end);
      const uint64_t end = std::max(call.end_ns, start);
      const auto frames = input_.profile.frames(input_.profile.stacks()[call.stack]);
      for (size_t k = frames.size(); k-- > 0;) add('O', frame(frames[k]), start);
      for (size_t k = 0; k < frames.size(); ++k) add('C', frame(frames[k]), end);
      last_end = end;
    }
    out_ << "{\"type\":\"evented\",\"name\":" << json_string(thread_name(thread) + " traced calls")
         << ",\"unit\":\"nanoseconds\",\"startValue\":0,\"endValue\":" << (last_end - origin) << ",\"events\":["
         << events << "]}";
  }

  const ExportInput& input_;
  std::ostream& out_;
  struct Frame {
    analysis::FunctionId function;
    std::string span;  // a span's frame when not empty
  };
  std::unordered_map<analysis::FunctionId, size_t> frames_;
  std::unordered_map<std::string, size_t> span_frames_;
  std::vector<Frame> frame_order_;
  std::map<ThreadKey, std::vector<TracedCall>> calls_;
  std::map<std::pair<ThreadKey, std::string>, std::vector<Span>> spans_;
};

}  // namespace

void write_speedscope(const ExportInput& input, std::ostream& out) { SpeedscopeWriter(input, out).write(); }

}  // namespace lumen::exporting
