// An event sink (lumen_event_sink) that reads everything a decoder hands
// er_print as er_print reads it: each event's values for every metric of
// the configuration, every name, stitch, span and level, and each code
// description through the analysis's own check (DescribedCodeTable). A
// decoder that hands over less than it says shows as a sanitizer report.
// What it counts (events, and each metric's values added up) lets a
// decoding in parts be compared with one pass.
#pragma once

#include <lumen/analysis_plugin.h>

#include <cstdint>
#include <string>
#include <vector>

#include "described_code.h"

namespace lumen::fuzz {

struct EventTotals {
  uint64_t events = 0;
  std::vector<uint64_t> sums;  // per metric, wrapping
  bool operator==(const EventTotals&) const = default;
};

class CheckedSink {
 public:
  // `timeline`: offer span and level, as a reader that draws timelines does.
  CheckedSink(size_t metric_count, bool timeline);

  const lumen_event_sink* sink() const { return &sink_; }
  // The thread of the record being decoded (record_thread).
  void set_record_thread(uint32_t thread_id) { record_thread_ = thread_id; }
  const EventTotals& totals() const { return totals_; }

 private:
  static void emit(void* context, const lumen_event* event);
  static uint64_t artificial_stack(void* context, const char* function);
  static void stitch(void* context, const lumen_stitch* stitch);
  static uint64_t traced_call_stack(void* context, uint64_t stack_id, const char* function);
  static void name_thread(void* context, uint32_t thread_id, const char* name, int role);
  static void span(void* context, const lumen_span* span);
  static void level(void* context, const char* name, lumen_metric_unit unit, uint64_t time_ns, int64_t value);
  static void describe_code(void* context, const lumen_code_description* code);
  static uint32_t record_thread(void* context);

  lumen_event_sink sink_;
  size_t metric_count_;
  uint32_t record_thread_ = 0;
  EventTotals totals_;
  std::vector<std::string> artificial_;
  uint64_t traced_ = 0;
  analysis::DescribedCodeTable described_;
};

// Reads a string the host would copy; aborts on NULL where the host would
// crash on it.
size_t read_string(const char* text, bool may_be_null, const char* what);

}  // namespace lumen::fuzz
