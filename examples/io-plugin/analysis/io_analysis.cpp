// The I/O plugin's analysis half: its metrics, the decoder that turns each
// traced call into one event, and its views (io_views.cpp).
#include <lumen/analysis_plugin.h>

#include <cstdio>
#include <cstring>
#include <iterator>

#include "../io_record.h"
#include "io_analysis.h"

namespace io_plugin {
namespace {

constexpr uint32_t kAllFlavors = LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED;

// Declaration order is the order of lumen_event::values (see Metric).
const lumen_metric_def kMetrics[] = {
    {"ioreadbytes", "Read Bytes", LUMEN_UNIT_BYTES, kAllFlavors, "bytes returned by successful reads"},
    {"iowritebytes", "Write Bytes", LUMEN_UNIT_BYTES, kAllFlavors, "bytes accepted by successful writes"},
    {"ioreadcnt", "Read Count", LUMEN_UNIT_COUNT, kAllFlavors, "successful read, pread, readv, preadv calls"},
    {"iowritecnt", "Write Count", LUMEN_UNIT_COUNT, kAllFlavors, "successful write, pwrite, writev, pwritev calls"},
    {"ioothercnt", "Other I/O Count", LUMEN_UNIT_COUNT, kAllFlavors,
     "successful open, close, fsync, fdatasync, lseek, dup calls"},
    {"ioerrorcnt", "I/O Error Count", LUMEN_UNIT_COUNT, kAllFlavors, "traced calls that failed"},
    {"iotime", "I/O Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors, "time spent in every traced call"},
};
static_assert(std::size(kMetrics) == kMetricCount, "one declaration per Metric");

int decode(void*, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
           size_t error_size) {
  if (kind != kCallRecord) return 0;  // file names and starts carry no metric
  if (bytes < sizeof(IoCall)) {
    std::snprintf(error, error_size, "an I/O call record is %u bytes, expected %zu", bytes, sizeof(IoCall));
    return 1;
  }
  IoCall call;
  std::memcpy(&call, payload, sizeof call);
  const CallTotals totals = totals_of(call);
  lumen_emit_event(sink, call.start_ns, call.stack_id, call.thread_id, -1, totals.values);
  return 0;
}

const lumen_analysis_descriptor kPlugin = {
    .abi_version = LUMEN_PLUGIN_ABI_VERSION,
    .name = "io",
    .version = "1.0",
    .data_file = kDataFile,
    .metrics = kMetrics,
    .metric_count = std::size(kMetrics),
    .decode = decode,
    .views = kViews,
    .view_count = kViewCount,
};

}  // namespace

CallTotals totals_of(const IoCall& call) {
  CallTotals totals{};
  totals.values[kTime] = static_cast<int64_t>(call.duration_ns);
  if (call.error != 0 || call.result < 0) {
    totals.values[kErrorCount] = 1;
    return totals;
  }
  switch (call_class(call.call)) {
    case CallClass::kRead:
      totals.values[kReadBytes] = call.result;
      totals.values[kReadCount] = 1;
      break;
    case CallClass::kWrite:
      totals.values[kWriteBytes] = call.result;
      totals.values[kWriteCount] = 1;
      break;
    case CallClass::kOther:
      totals.values[kOtherCount] = 1;
      break;
  }
  return totals;
}

}  // namespace io_plugin

LUMEN_EXPORT const lumen_analysis_descriptor* lumen_analysis_plugin() { return &io_plugin::kPlugin; }
