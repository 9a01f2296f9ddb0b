// The fsync plugin's one record, shared by its two halves: one declaration
// of its layout, checked by static_assert. Stored numbers never change.
#pragma once

#include <cstdint>

namespace fsync_plugin {

inline constexpr const char* kDataFile = "fsynctrace";

// Record kinds in "fsynctrace" (kind 0 is reserved); a reader refuses a
// kind it does not know.
inline constexpr uint16_t kSyncRecord = 1;  // SyncCall, then the file name's bytes

enum class Call : uint16_t { kFsync = 1, kFdatasync = 2 };

inline const char* call_name(uint16_t call) {
  return call == static_cast<uint16_t>(Call::kFdatasync) ? "fdatasync" : "fsync";
}

// One traced call: what it returned (0, or -1 with `error` its errno), how
// long it took, where it was called from, and the name the kernel gives
// its descriptor (name_bytes of them follow; none when it has none).
struct SyncCall {
  uint64_t start_ns;  // CLOCK_MONOTONIC, the experiment's clock
  uint64_t duration_ns;
  uint64_t stack_id;
  uint32_t thread_id;
  int32_t result;
  uint16_t call;   // Call
  uint16_t error;  // errno, 0 on success
  uint32_t name_bytes;
};
static_assert(sizeof(SyncCall) == 40, "stored layout");

inline constexpr uint32_t kMaxName = 1024;

}  // namespace fsync_plugin
