// MPI tracing on the host: each traced call becomes one event carrying its
// time in MPI and the point-to-point messages it started and completed,
// attributed to the stack of the code that called MPI.
#include <lumen/analysis_plugin.h>

#include <cstdio>
#include <cstring>
#include <iterator>

#include "../mpi_packed_call.h"
#include "mpi_analysis.h"

namespace lumen::mpi {
namespace {

constexpr uint32_t kAllFlavors = LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE | LUMEN_FLAVOR_ATTRIBUTED;

// Oracle's keywords and titles, in the order of MpiCall's values below.
const lumen_metric_def kMetrics[] = {
    {"mpitime", "MPI Time", LUMEN_UNIT_NANOSECONDS, kAllFlavors, "Time spent in all calls to MPI functions"},
    {"mpisend", "MPI Sends", LUMEN_UNIT_COUNT, kAllFlavors, "Number of MPI point-to-point sends started"},
    {"mpibytessent", "MPI Bytes Sent", LUMEN_UNIT_BYTES, kAllFlavors, "Number of bytes in MPI sends"},
    {"mpireceive", "MPI Receives", LUMEN_UNIT_COUNT, kAllFlavors, "Number of MPI point-to-point receives completed"},
    {"mpibytesrecv", "MPI Bytes Received", LUMEN_UNIT_BYTES, kAllFlavors, "Number of bytes in MPI receives"},
    {"mpiother", "Other MPI Events", LUMEN_UNIT_COUNT, kAllFlavors,
     "Number of calls to MPI functions that neither send nor receive point-to-point messages"},
    // With clock profiling: its samples split by whether they fell inside a
    // traced call of their thread (kIntervalSplit). The decoder leaves both at 0.
    {"mpiwork", "MPI Work", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "CPU time outside MPI calls (clock-profile samples between the calls)"},
    {"mpiwait", "MPI Wait", LUMEN_UNIT_NANOSECONDS, kAllFlavors,
     "CPU time inside MPI calls (clock-profile samples during the calls)"},
};

// A call covers [entry, exit] of its thread: its event is stamped at exit
// and carries mpitime = exit - entry.
const lumen_interval_split kIntervalSplit = {0 /* mpitime */, "totalcpu", 7 /* mpiwait */, 6 /* mpiwork */};

template <typename Record>
bool read_record(const void* payload, uint16_t bytes, Record* record, const char* what, char* error,
                 size_t error_size) {
  if (bytes < sizeof(Record)) {
    std::snprintf(error, error_size, "MPI %s record of %u bytes, expected %zu", what, bytes, sizeof(Record));
    return false;
  }
  std::memcpy(record, payload, sizeof(Record));
  return true;
}

int decode(void*, uint16_t kind, const void* payload, uint16_t bytes, const lumen_event_sink* sink, char* error,
           size_t error_size) {
  if (kind == kProcessRecord) {
    MpiProcess process;
    if (!read_record(payload, bytes, &process, "process", error, error_size)) return 1;
    if (sizeof process + process.library_bytes + process.host_bytes > bytes) {
      std::snprintf(error, error_size, "MPI process record of %u bytes, too short for its %u + %u bytes of names",
                    bytes, process.library_bytes, process.host_bytes);
      return 1;
    }
    return 0;  // read by the views
  }
  if (kind == kMessageRecord) {
    MpiMessage message;
    return read_record(payload, bytes, &message, "message", error, error_size) ? 0 : 1;
  }
  if (kind == kSettingsRecord || kind == kIncompleteRecord || kind == kClockRecord) return 0;  // read by the views
  MpiCall call;
  if (kind == kCompactCallRecord) {
    UnpackedCall unpacked;
    const char* problem = nullptr;
    // The events need the call's thread, not its rank.
    const CallWriter writer{sink->record_thread != nullptr ? sink->record_thread(sink->context) : 0, -1};
    if (!unpack(payload, bytes, writer, unpacked, &problem)) {
      std::snprintf(error, error_size, "%s", problem);
      return 1;
    }
    call = unpacked.call;
  } else if (kind == kCallRecord) {
    if (!read_record(payload, bytes, &call, "call", error, error_size)) return 1;
  } else {
    return lumen_unknown_record_kind("MPI", kind, error, error_size);
  }
  if (call.exit_ns < call.enter_ns) {
    std::snprintf(error, error_size, "%s returned at %llu ns, before it was called at %llu ns",
                  function_name(call.function), static_cast<unsigned long long>(call.exit_ns),
                  static_cast<unsigned long long>(call.enter_ns));
    return 1;
  }
  int64_t values[std::size(kMetrics)] = {};  // mpiwork and mpiwait stay 0: the split fills them
  values[0] = lumen_value_of(call.exit_ns - call.enter_ns);
  values[1] = call.sends;
  values[2] = lumen_value_of(call.bytes_sent);
  values[3] = call.receives;
  values[4] = lumen_value_of(call.bytes_received);
  values[5] = call.sends + call.receives == 0 ? 1 : 0;
  // The MPI function is its event's leaf (its stack starts at its caller).
  lumen_emit_event(sink, call.exit_ns, lumen_traced_call_stack(sink, call.stack_id, function_name(call.function)),
                   call.thread_id, -1, values);
  return 0;
}

const lumen_analysis_descriptor kPlugin = {
    LUMEN_SDK_HEAD(lumen_analysis_descriptor),
    .name = "mpi",
    .version = "1.0",
    .data_file = kDataFile,
    .metrics = kMetrics,
    .metric_count = std::size(kMetrics),
    .decode = decode,
    .decodes_in_parts = 1,  // each call record carries its messages; other records are for the views
    .views = kMpiViews,
    .view_count = kMpiViewCount,
    .interval_splits = &kIntervalSplit,
    .interval_split_count = 1,
};

}  // namespace
}  // namespace lumen::mpi

LUMEN_EXPORT const lumen_analysis_descriptor* lumen_analysis_plugin() { return &lumen::mpi::kPlugin; }
