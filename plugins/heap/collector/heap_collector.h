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
#include "event_batches.h"

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

};

// Events are paired here, as they happen, through the live table
// (live_table.h): an allocation is recorded and made live after the real
// call succeeded; a deallocation takes its address out of the table before
// the real call runs (take_live), and is recorded once that call succeeded
// (record_free) or put back when it failed (restore_live).

// An allocation that succeeded.
void record_allocation(const TraceGuard&, Allocator allocator, const void* address, size_t size) noexcept;

// Before a real call that frees `address` (a mapping's when `mapping`): what
// it releases, taken out of the live table.
Freed take_live(const TraceGuard&, const void* address, bool mapping) noexcept;

// The real call failed: what take_live took is live again.
void restore_live(const TraceGuard&, const Freed& freed, const void* address, bool mapping) noexcept;

// A deallocation (EventType::kFree or kUnmap) of what take_live returned.
void record_free(const TraceGuard&, EventType type, const Freed& freed) noexcept;

// realloc/mremap that succeeded: what take_live returned released (when
// `frees`), and `size` bytes at `address` now.
void record_reallocation(const TraceGuard&, Allocator allocator, bool frees, const Freed& freed,
                         const void* address, size_t size) noexcept;

}  // namespace lumen::heap
