// What the sync interposers share with the plugin's lifecycle (start/stop).
#pragma once

#include <pthread.h>

#include <atomic>
#include <cstdint>

#include "../sync_record.h"

namespace lumen::sync {

// The threshold in nanoseconds while the plugin records; -1 before start()
// has finished and after stop(). One load decides whether a wrapper does
// anything but forward. Waits longer than the threshold are recorded; with 0
// every call is.
extern std::atomic<int64_t> g_threshold_ns;
static_assert(std::atomic<int64_t>::is_always_lock_free, "read on every traced call");

inline int64_t current_threshold() { return g_threshold_ns.load(std::memory_order_acquire); }

// [signal-safe] The experiment's clock (CLOCK_MONOTONIC, vDSO). Only after
// current_threshold() returned >= 0.
uint64_t now_ns();

// Records one wait with the caller's stack, unless the process is no longer
// collected or the calling thread is inside the collector (the runtime's own
// locking). Keeps errno. Never inlined: the stack starts at its caller's
// caller, and its frames are left out with the rest of this object.
void record_wait(uint64_t request_ns, uint64_t grant_ns, const void* object, ObjectKind kind, Call call, int result);

// The real pthread_mutex_lock/unlock, for calibration.
int real_mutex_lock(pthread_mutex_t* mutex);
int real_mutex_unlock(pthread_mutex_t* mutex);

// Looks up every real function now (start-up), so the first traced calls do
// not pay for dlvsym.
void resolve_real_functions();

}  // namespace lumen::sync
