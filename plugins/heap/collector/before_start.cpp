#include "before_start.h"

#include <lumen/collector_plugin.h>

#include <atomic>

#pragma weak lumen_runtime_began

namespace lumen::heap {

namespace {

// A program's libraries seldom make more than a few dozen calls in their
// constructors; a call past the table is lost (counted and logged).
constexpr size_t kKeptCalls = 4096;

struct KeptSlot {
  std::atomic<bool> ready{false};  // written whole (a thread still writing at start is left out)
  KeptCall call{};
};

// constinit: written before this object's own initializers run, which must
// not reset them.
constinit KeptSlot g_kept[kKeptCalls];
constinit std::atomic<size_t> g_kept_used{0};
constinit std::atomic<bool> g_keeping{true};

void keep(const KeptCall& call) noexcept {
  const size_t index = g_kept_used.fetch_add(1, std::memory_order_relaxed);
  if (index >= kKeptCalls) return;
  g_kept[index].call = call;
  g_kept[index].ready.store(true, std::memory_order_release);
}

}  // namespace

bool before_start_open() noexcept {
  if (!g_keeping.load(std::memory_order_acquire)) return false;
  if (&lumen_runtime_began != nullptr && lumen_runtime_began() == 0) return true;
  g_keeping.store(false, std::memory_order_release);
  return false;
}

void before_start_allocated(Allocator allocator, const void* address, size_t size, const void* call_site, bool frees,
                            const void* old) noexcept {
  const bool reallocation = allocator == Allocator::kRealloc || allocator == Allocator::kMremap;
  keep({reallocation ? EventType::kRealloc : EventType::kAlloc, allocator, frees, address, old, size, call_site});
}

void before_start_freed(const void* address, bool mapping) noexcept {
  keep({mapping ? EventType::kUnmap : EventType::kFree, Allocator::kMalloc, true, address, nullptr, 0, nullptr});
}

size_t before_start_close(void (*visit)(const KeptCall&)) noexcept {
  g_keeping.store(false, std::memory_order_release);
  const size_t used = g_kept_used.load(std::memory_order_acquire);
  const size_t kept = used < kKeptCalls ? used : kKeptCalls;
  for (size_t i = 0; i < kept; ++i)
    if (g_kept[i].ready.load(std::memory_order_acquire)) visit(g_kept[i].call);
  return used - kept;
}

}  // namespace lumen::heap
