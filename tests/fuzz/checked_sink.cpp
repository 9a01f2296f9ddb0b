#include "checked_sink.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace lumen::fuzz {

namespace {

constexpr uint64_t kArtificialBase = uint64_t{1} << 62;
constexpr uint64_t kTracedBase = uint64_t{1} << 61;

CheckedSink& self(void* context) { return *static_cast<CheckedSink*>(context); }

// A value nothing optimises away: what the host does with what it reads.
volatile uint64_t g_sink;

}  // namespace

size_t read_string(const char* text, bool may_be_null, const char* what) {
  if (text == nullptr) {
    if (may_be_null) return 0;
    std::fprintf(stderr, "decoder fuzzer: NULL %s, which er_print would copy\n", what);
    std::abort();
  }
  return std::strlen(text);
}

CheckedSink::CheckedSink(size_t metric_count, bool timeline) : metric_count_(metric_count) {
  totals_.sums.assign(metric_count, 0);
  sink_ = lumen_event_sink{.size = sizeof(lumen_event_sink),
                           .context = this,
                           .emit = emit,
                           .artificial_stack = artificial_stack,
                           .traced_call_stack = traced_call_stack,
                           .record_thread = record_thread,
                           .stitch = stitch,
                           .name_thread = name_thread,
                           .span = timeline ? span : nullptr,
                           .level = timeline ? level : nullptr,
                           .describe_code = describe_code};
}

void CheckedSink::emit(void* context, const lumen_event* event) {
  CheckedSink& s = self(context);
  g_sink = event->time_ns + event->stack_id + event->thread_id + static_cast<uint64_t>(event->cpu);
  if (s.metric_count_ > 0 && event->values == nullptr) {
    std::fprintf(stderr, "decoder fuzzer: an event without values, of %zu metrics\n", s.metric_count_);
    std::abort();
  }
  for (size_t i = 0; i < s.metric_count_; ++i) s.totals_.sums[i] += static_cast<uint64_t>(event->values[i]);
  ++s.totals_.events;
}

uint64_t CheckedSink::artificial_stack(void* context, const char* function) {
  read_string(function, false, "artificial function");
  auto& names = self(context).artificial_;
  auto found = std::find(names.begin(), names.end(), function);
  if (found == names.end()) found = names.insert(names.end(), function);
  return kArtificialBase + static_cast<uint64_t>(found - names.begin());
}

void CheckedSink::stitch(void*, const lumen_stitch* stitch) {
  if (stitch == nullptr) return;
  g_sink = stitch->thread_id + stitch->modes + stitch->begin_ns + stitch->end_ns + stitch->anchor_pc +
           stitch->parent_stack_id + read_string(stitch->leaf, true, "stitch leaf");
}

uint64_t CheckedSink::traced_call_stack(void* context, uint64_t stack_id, const char* function) {
  if (function == nullptr) return stack_id;
  read_string(function, false, "traced function");
  return kTracedBase + self(context).traced_++;
}

void CheckedSink::name_thread(void*, uint32_t thread_id, const char* name, int role) {
  g_sink = thread_id + static_cast<uint64_t>(role) + read_string(name, true, "thread name");
}

void CheckedSink::span(void*, const lumen_span* span) {
  if (span == nullptr) return;
  g_sink = span->thread_id + span->begin_ns + span->end_ns + span->stack_id + read_string(span->name, true, "span");
}

void CheckedSink::level(void*, const char* name, lumen_metric_unit unit, uint64_t time_ns, int64_t value) {
  g_sink = read_string(name, true, "level") + unit + time_ns + static_cast<uint64_t>(value);
}

void CheckedSink::describe_code(void* context, const lumen_code_description* code) {
  if (code == nullptr) return;
  auto copy = analysis::DescribedCodeTable::copy_of(*code);
  if (!copy) return;
  const uint64_t start = copy->start, end = copy->end;
  auto& table = self(context).described_;
  table.add(std::move(*copy));
  for (const uint64_t address : {start, start + (end - start) / 2, end - 1})
    if (const analysis::DescribedCode* found = table.find(address))
      g_sink = static_cast<uint64_t>(found->line_at(address)) + found->text_at(address).size();
}

uint32_t CheckedSink::record_thread(void* context) { return self(context).record_thread_; }

}  // namespace lumen::fuzz
