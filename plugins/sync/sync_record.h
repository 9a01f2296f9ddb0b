// The sync plugin's records, shared by its two halves: one declaration of
// each layout, checked by static_assert.
#pragma once

#include <cstdint>

namespace lumen::sync {

inline constexpr const char* kDataFile = "synctrace";

// Record kinds in "synctrace".
inline constexpr uint16_t kWaitRecord = 1;      // SyncWait
inline constexpr uint16_t kSettingsRecord = 2;  // SyncSettings, once per process at start
// A wait on a managed runtime's monitor (a Java object's), recorded by that
// runtime's plugin: SyncWait, then the monitor's name (the rest of
// the record). Its stack is the runtime's frames, the waiting method first.
inline constexpr uint16_t kMonitorWaitRecord = 3;

// What was waited on. Stable numbers: they are stored.
enum class ObjectKind : uint16_t {
  kMutex = 1,
  kRwlock = 2,
  kCond = 3,
  kSemaphore = 4,
  kBarrier = 5,
  kJoin = 6,
  kJavaMonitor = 7,  // a Java object's monitor; SyncWait.object: a hash of its name
};

// Which call waited. Stable numbers: they are stored.
enum class Call : uint16_t {
  kMutexLock = 1,
  kMutexTimedlock = 2,
  kMutexClocklock = 3,
  kRwlockRdlock = 4,
  kRwlockTimedrdlock = 5,
  kRwlockClockrdlock = 6,
  kRwlockWrlock = 7,
  kRwlockTimedwrlock = 8,
  kRwlockClockwrlock = 9,
  kCondWait = 10,
  kCondTimedwait = 11,
  kCondClockwait = 12,
  kSemWait = 13,
  kSemTimedwait = 14,
  kSemClockwait = 15,
  kBarrierWait = 16,
  kJoin = 17,
  kTimedjoin = 18,
  kClockjoin = 19,
  kMonitorEnter = 20,  // entering a contended synchronized block or method
  kMonitorWait = 21,   // Object.wait
};

// One traced call whose wait exceeded the threshold (or any call, with
// threshold 0). The wait is grant_ns - request_ns, both CLOCK_MONOTONIC.
// `object` is the synchronization object's address (for a join, the
// pthread_t joined). `result` is what the call returned: an error number for
// the pthread calls, errno (or 0) for the semaphore calls.
struct SyncWait {
  uint64_t request_ns;
  uint64_t grant_ns;
  uint64_t object;
  uint64_t stack_id;
  uint32_t thread_id;
  uint16_t object_kind;  // ObjectKind
  uint16_t call;         // Call
  int32_t result;
  uint32_t reserved;
};
static_assert(sizeof(SyncWait) == 48, "record layout");

// The threshold in force for the process, and how it was chosen.
inline constexpr uint32_t kThresholdCalibrated = 1u;

struct SyncSettings {
  uint64_t threshold_ns;
  uint64_t calibration_pair_ps;  // average uncontended lock/unlock pair, picoseconds; 0 unless calibrated
  uint32_t calibration_pairs;    // pairs per timed batch; 0 unless calibrated
  uint32_t flags;                // kThreshold*
};
static_assert(sizeof(SyncSettings) == 24, "record layout");

// The function a Call is.
inline const char* call_name(uint16_t call) {
  static constexpr const char* kNames[] = {
      "pthread_mutex_lock",     "pthread_mutex_timedlock",    "pthread_mutex_clocklock",
      "pthread_rwlock_rdlock",  "pthread_rwlock_timedrdlock", "pthread_rwlock_clockrdlock",
      "pthread_rwlock_wrlock",  "pthread_rwlock_timedwrlock", "pthread_rwlock_clockwrlock",
      "pthread_cond_wait",      "pthread_cond_timedwait",     "pthread_cond_clockwait",
      "sem_wait",               "sem_timedwait",              "sem_clockwait",
      "pthread_barrier_wait",   "pthread_join",               "pthread_timedjoin_np",
      "pthread_clockjoin_np"};
  return call >= 1 && call <= sizeof kNames / sizeof kNames[0] ? kNames[call - 1] : nullptr;
}

inline const char* object_kind_name(uint16_t kind) {
  switch (static_cast<ObjectKind>(kind)) {
    case ObjectKind::kMutex: return "mutex";
    case ObjectKind::kRwlock: return "rwlock";
    case ObjectKind::kCond: return "cond";
    case ObjectKind::kSemaphore: return "sem";
    case ObjectKind::kBarrier: return "barrier";
    case ObjectKind::kJoin: return "join";
    case ObjectKind::kJavaMonitor: return "monitor";
  }
  return "unknown";
}

}  // namespace lumen::sync
