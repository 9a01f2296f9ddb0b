// Synchronization wait tracing on the host: each recorded wait becomes one
// event whose Sync Wait Time is the wait and whose Sync Wait Count is one,
// attributed to the stack of the call that waited.
#include <lumen/analysis_plugin.h>

#include <cstdio>
#include <cstring>
#include <iterator>

#include "../sync_record.h"
#include "sync_analysis.h"

namespace lumen::sync {
namespace {

// Oracle's keywords and titles. The default metric list shows them
// inclusive only, as gprofng does: the exclusive figures are those of the
// traced calls at each stack's leaf.
const lumen_metric_def kMetrics[] = {
    {"sync", "Sync Wait Time", LUMEN_UNIT_NANOSECONDS,
     LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED,
     "Synchronization wait time: time spent in calls that waited on another thread longer than the threshold",
     LUMEN_FLAVOR_INCLUSIVE},
    {"syncn", "Sync Wait Count", LUMEN_UNIT_COUNT,
     LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED,
     "Synchronization delay events: calls that waited longer than the threshold", LUMEN_FLAVOR_INCLUSIVE},
};

int decode(void*, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
           size_t error_size) {
  if (kind == kSettingsRecord) {
    if (bytes < sizeof(SyncSettings)) {
      std::snprintf(error, error_size, "sync settings record of %u bytes, expected %zu", bytes, sizeof(SyncSettings));
      return 1;
    }
    return 0;  // no event: read by -syncobjects
  }
  if (kind != kWaitRecord && kind != kMonitorWaitRecord)
    return lumen_unknown_record_kind("sync", kind, error, error_size);
  if (bytes < sizeof(SyncWait)) {
    std::snprintf(error, error_size, "sync wait record of %u bytes, expected %zu", bytes, sizeof(SyncWait));
    return 1;
  }
  SyncWait wait;
  std::memcpy(&wait, payload, sizeof wait);
  if (wait.grant_ns < wait.request_ns) {
    std::snprintf(error, error_size, "sync wait granted at %llu ns, before its request at %llu ns",
                  static_cast<unsigned long long>(wait.grant_ns), static_cast<unsigned long long>(wait.request_ns));
    return 1;
  }
  const int64_t values[] = {lumen_value_of(wait.grant_ns - wait.request_ns), 1};
  // The traced call is its event's leaf (its stack starts at its caller).
  const char* call = call_name(wait.call);
  const uint64_t stack = call != nullptr ? lumen_traced_call_stack(sink, wait.stack_id, call) : wait.stack_id;
  lumen_emit_event(sink, wait.grant_ns, stack, wait.thread_id, -1, values);
  return 0;
}

const lumen_analysis_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_analysis_descriptor),
    .name = "sync",
    .version = "1.0",
    .data_file = kDataFile,
    .metrics = kMetrics,
    .metric_count = std::size(kMetrics),
    .decode = decode,
    .decodes_in_parts = 1,  // each wait is one event
    .views = &kSyncObjectsView,
    .view_count = 1,
};

}  // namespace
}  // namespace lumen::sync

LUMEN_EXPORT const lumen_analysis_descriptor* lumen_analysis_plugin() {
  return &lumen::sync::kPlugin;
}
