// The fsync plugin's analysis half: two metrics, a decoder turning each
// traced call into one event whose leaf is the call itself, and one view,
// -fsyncs, the calls by file.
#include <lumen/analysis_plugin.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iterator>
#include <map>
#include <string>

#include "../fsync_record.h"

namespace fsync_plugin {
namespace {

constexpr uint32_t kAllFlavors = LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED;

// Declaration order is the order of lumen_event::values. Keywords must not
// collide with any other plugin's (collect --list-plugins shows them all).
enum Metric { kCount, kTime, kMetricCount };
const lumen_metric_def kMetrics[] = {
    {"fsynccnt", "Sync-to-Disk Calls", LUMEN_UNIT_COUNT, kAllFlavors, "fsync and fdatasync calls, failed ones too"},
    // Shown inclusive only when no metric list is given: the exclusive time
    // is the traced call's own, at its stack's leaf.
    {"fsynctime", "Sync-to-Disk Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors, "time in fsync and fdatasync",
     LUMEN_FLAVOR_INCLUSIVE},
};
static_assert(std::size(kMetrics) == kMetricCount, "one declaration per Metric");

// A record's fixed part, checked: false when it is cut short.
bool read_call(const void* payload, uint16_t bytes, SyncCall& call) {
  if (bytes < sizeof call) return false;
  std::memcpy(&call, payload, sizeof call);
  return call.name_bytes <= kMaxName && sizeof call + call.name_bytes <= bytes;
}

int decode(void*, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
           size_t error_size) {
  if (kind != kSyncRecord) return lumen_unknown_record_kind("fsync", kind, error, error_size);
  SyncCall call;
  if (!read_call(payload, bytes, call)) {
    std::snprintf(error, error_size, "an fsync record of %u bytes is cut short", bytes);
    return 1;
  }
  const int64_t values[kMetricCount] = {1, static_cast<int64_t>(call.duration_ns)};
  // The traced call is its event's leaf, at libc's definition.
  const uint64_t stack = lumen_traced_call_stack(sink, call.stack_id, call_name(call.call));
  lumen_emit_event(sink, call.start_ns, stack, call.thread_id, -1, values);
  return 0;
}

// -fsyncs: the calls in er_print's selection, one row per file name.
struct ByFile {
  const lumen_view_host* host;
  std::map<std::string, std::array<double, kMetricCount>> rows;
  double total[kMetricCount] = {};
  bool damaged = false;
};

void visit(void* arg, uint16_t kind, const void* payload, uint16_t bytes, uint32_t) {
  auto* scan = static_cast<ByFile*>(arg);
  SyncCall call;
  if (kind != kSyncRecord) return;
  if (!read_call(payload, bytes, call)) {
    scan->damaged = true;
    return;
  }
  if (!scan->host->selected(scan->host->context, call.start_ns, call.thread_id)) return;
  const std::string name = call.name_bytes == 0 ? "<no file>"
                                                : std::string(static_cast<const char*>(payload) + sizeof call,
                                                              call.name_bytes);
  std::array<double, kMetricCount>& row = scan->rows[name];
  const double values[kMetricCount] = {1, static_cast<double>(call.duration_ns)};
  for (size_t i = 0; i < kMetricCount; ++i) row[i] += values[i], scan->total[i] += values[i];
}

int run_by_file(const lumen_view_host* host, char* error, size_t error_size) {
  try {
    ByFile scan{host, {}};
    host->for_each_record(host->context, visit, &scan);
    if (scan.damaged) {
      std::snprintf(error, error_size, "an fsync record is cut short");
      return 1;
    }
    const lumen_view_column columns[] = {{"fsynccnt", "Calls", LUMEN_UNIT_COUNT},
                                         {"fsynctime", "Time", LUMEN_UNIT_NANOSECONDS}};
    for (size_t i = 0; i < kMetricCount; ++i)
      host->summary(host->context, columns[i].key, kMetrics[i].title, scan.total[i], columns[i].unit);
    host->table_begin(host->context, "Sync-to-disk calls by file", columns, kMetricCount);
    for (const auto& [name, values] : scan.rows) host->table_row(host->context, name.c_str(), values.data(), LUMEN_NO_STACK);
    return 0;
  } catch (const std::exception& e) {
    std::snprintf(error, error_size, "%s", e.what());
    return 1;
  }
}

const lumen_view_def kViews[] = {
    {"fsyncs", "fsync and fdatasync calls by file: how many, and the time they took", run_by_file},
};

const lumen_analysis_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_analysis_descriptor),
    .name = "fsync",
    .version = "1.0",
    .data_file = kDataFile,
    .metrics = kMetrics,
    .metric_count = std::size(kMetrics),
    .decode = decode,
    .views = kViews,
    .view_count = std::size(kViews),
};

}  // namespace
}  // namespace fsync_plugin

LUMEN_EXPORT const lumen_analysis_descriptor* lumen_analysis_plugin() { return &fsync_plugin::kPlugin; }
