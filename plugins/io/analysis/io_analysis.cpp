// I/O tracing on the host: its metrics, the decoder that turns each traced
// call into one event with the call as its stack's leaf, and its views
// (io_views.cpp, io_statistics.cpp).
#include "io_analysis.h"

#include <cstdio>
#include <cstring>
#include <iterator>

namespace lumen::io {
namespace {

constexpr uint32_t kAllFlavors = LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED;
constexpr uint32_t kInclusive = LUMEN_FLAVOR_INCLUSIVE;
constexpr int kHidden = 1;

// Declaration order is the order of lumen_event::values (see Metric). As
// gprofng's, the default metric list shows the times inclusive (the
// exclusive time is the traced calls' own, at each stack's leaf) and
// leaves the counts and bytes to be asked for by name.
const lumen_metric_def kMetrics[] = {
    {"ioreadtime", "Read Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors, "time in successful reads", kInclusive},
    {"iowritetime", "Write Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors, "time in successful writes", kInclusive},
    {"ioothertime", "Other I/O Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "time in successful open, close, fsync, fdatasync, lseek and dup calls", kInclusive},
    {"ioerrortime", "I/O Error Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors, "time in traced calls that failed",
     kInclusive},
    {"ioreadbytes", "Read Bytes", LUMEN_UNIT_BYTES, kAllFlavors, "bytes returned by successful reads", 0, kHidden},
    {"ioreadcnt", "Read Count", LUMEN_UNIT_COUNT, kAllFlavors, "successful read, pread, readv, preadv calls", 0,
     kHidden},
    {"iowritebytes", "Write Bytes", LUMEN_UNIT_BYTES, kAllFlavors, "bytes accepted by successful writes", 0,
     kHidden},
    {"iowritecnt", "Write Count", LUMEN_UNIT_COUNT, kAllFlavors, "successful write, pwrite, writev, pwritev calls",
     0, kHidden},
    {"ioothercnt", "Other I/O Count", LUMEN_UNIT_COUNT, kAllFlavors,
     "successful open, close, fsync, fdatasync, lseek and dup calls", 0, kHidden},
    {"ioerrorcnt", "I/O Error Count", LUMEN_UNIT_COUNT, kAllFlavors, "traced calls that failed", 0, kHidden},
};
static_assert(std::size(kMetrics) == kMetricCount, "one declaration per Metric");

int decode(void*, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
           size_t error_size) {
  if (kind == kFileRecord || kind == kStartRecord) return 0;  // file names and starts carry no metric
  if (kind != kCallRecord) return lumen_unknown_record_kind("I/O", kind, error, error_size);
  if (bytes < sizeof(IoCall)) {
    std::snprintf(error, error_size, "an I/O call record is %u bytes, expected %zu", bytes, sizeof(IoCall));
    return 1;
  }
  IoCall call;
  std::memcpy(&call, payload, sizeof call);
  const CallTotals totals = totals_of(call);
  const uint64_t stack = lumen_traced_call_stack(sink, call.stack_id, call_name(call.call));
  lumen_emit_event(sink, call.start_ns, stack, call.thread_id, -1, totals.values);
  return 0;
}

const lumen_analysis_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_analysis_descriptor),
    .name = "io",
    .version = "1.0",
    .data_file = kDataFile,
    .metrics = kMetrics,
    .metric_count = std::size(kMetrics),
    .decode = decode,
    .decodes_in_parts = 1,  // each call record is one event
    .views = kViews,
    .view_count = kViewCount,
};

}  // namespace

const lumen_view_column kColumns[kMetricCount] = {
    {"ioreadtime", "Read Time", LUMEN_UNIT_NANOSECONDS},
    {"iowritetime", "Write Time", LUMEN_UNIT_NANOSECONDS},
    {"ioothertime", "Other I/O Time", LUMEN_UNIT_NANOSECONDS},
    {"ioerrortime", "Error Time", LUMEN_UNIT_NANOSECONDS},
    {"ioreadbytes", "Read Bytes", LUMEN_UNIT_BYTES},
    {"ioreadcnt", "Reads", LUMEN_UNIT_COUNT},
    {"iowritebytes", "Write Bytes", LUMEN_UNIT_BYTES},
    {"iowritecnt", "Writes", LUMEN_UNIT_COUNT},
    {"ioothercnt", "Other I/O", LUMEN_UNIT_COUNT},
    {"ioerrorcnt", "Errors", LUMEN_UNIT_COUNT},
};

CallTotals totals_of(const IoCall& call) {
  CallTotals totals{};
  const auto duration = lumen_value_of(call.duration_ns);
  if (call.error != 0 || call.result < 0) {
    totals.values[kErrorCount] = 1;
    totals.values[kErrorTime] = duration;
    return totals;
  }
  switch (call_class(call.call)) {
    case CallClass::kRead:
      totals.values[kReadBytes] = call.result;
      totals.values[kReadCount] = 1;
      totals.values[kReadTime] = duration;
      break;
    case CallClass::kWrite:
      totals.values[kWriteBytes] = call.result;
      totals.values[kWriteCount] = 1;
      totals.values[kWriteTime] = duration;
      break;
    case CallClass::kOther:
      totals.values[kOtherCount] = 1;
      totals.values[kOtherTime] = duration;
      break;
  }
  return totals;
}

}  // namespace lumen::io

LUMEN_EXPORT const lumen_analysis_descriptor* lumen_analysis_plugin() { return &lumen::io::kPlugin; }
