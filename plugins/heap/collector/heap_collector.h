// Recording heap events from the interposers.
//
// A TraceGuard (the SDK's, lumen/collector_support.h) is taken around each
// real call: it is true when the plugin has started, this process is
// collected, and the calling thread is not already inside the collector (the
// runtime holds the same guard while it allocates for itself, and so do these
// interposers around the real call, so an allocator that calls mmap
// internally is not traced twice). Every record_* function demands the
// guard, so recording without it does not compile. Recording never changes
// errno.
#pragma once

#include <lumen/collector_support.h>

#include <atomic>
#include <cstddef>

#include "../heap_record.h"
#include "event_clock.h"

namespace lumen::heap {

namespace detail {
extern const lumen_runtime* g_runtime;
extern std::atomic<bool> g_running;
}  // namespace detail

// [signal-safe] The SDK's guard, false until start() and after stop().
class TraceGuard : public lumen::TraceGuard {
 public:
  TraceGuard() noexcept
      : lumen::TraceGuard(detail::g_running.load(std::memory_order_acquire) ? detail::g_runtime : nullptr) {}

  // An event's stamp (event_clock.h); call only when the guard is true.
  uint64_t now() const noexcept { return event_stamp(); }
};

// An allocation that succeeded, stamped now (after the real call).
void record_allocation(const TraceGuard&, Allocator allocator, const void* address, size_t size) noexcept;

// realloc/mremap that succeeded: `old_address` (may be null) freed at
// `free_time_ns`, taken before the real call; `size` bytes at `address` now.
void record_reallocation(const TraceGuard&, Allocator allocator, uint64_t free_time_ns, const void* old_address,
                         const void* address, size_t size) noexcept;

// A deallocation (EventType::kFree or kUnmap) stamped at `time_ns`, taken
// before the real call.
void record_free(const TraceGuard&, EventType type, const void* address, uint64_t time_ns) noexcept;

}  // namespace lumen::heap
