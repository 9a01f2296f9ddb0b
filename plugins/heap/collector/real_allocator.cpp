#include "real_allocator.h"

#include <lumen/collector_support.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>

namespace lumen::heap {

namespace detail {
RealAllocator g_real{};
std::atomic<bool> g_real_ready{false};
}  // namespace detail

namespace {

// dlsym asks for at most a few small blocks; 64 KiB leaves a wide margin.
constexpr size_t kArenaBytes = 64 * 1024;
constexpr size_t kHeader = 16;  // the block's size, kept in front of it
alignas(4096) char g_arena[kArenaBytes];
std::atomic<size_t> g_arena_used{0};

// The thread that claims g_claim fills g_real and publishes it; a thread
// that arrives meanwhile resolves into its own copy rather than wait (the
// winner may be inside the dynamic linker, holding its lock).
std::atomic<bool> g_claim{false};
__attribute__((tls_model("initial-exec"))) thread_local bool t_resolving = false;
__attribute__((tls_model("initial-exec"))) thread_local RealAllocator t_private{};

template <typename Function>
void find(Function& slot, const char* name) {
  slot = lumen::next_function<Function>(name);
  if (slot == nullptr) {
    // Nothing to forward to: continuing would crash later, somewhere less clear.
    static const char message[] = "lumen heap plugin: no next definition of an allocation function\n";
    [[maybe_unused]] ssize_t n = write(2, message, sizeof message - 1);
    _exit(127);
  }
}

void fill(RealAllocator& r) {
  // calloc first: dlsym's own allocations (if any) come from the arena until
  // everything is known, since this thread is marked as resolving.
  find(r.calloc, "calloc");
  find(r.malloc, "malloc");
  find(r.realloc, "realloc");
  find(r.free, "free");
  find(r.memalign, "memalign");
  find(r.posix_memalign, "posix_memalign");
  find(r.aligned_alloc, "aligned_alloc");
  find(r.valloc, "valloc");
  find(r.pvalloc, "pvalloc");
  find(r.mmap, "mmap");
  find(r.mmap64, "mmap64");
  find(r.munmap, "munmap");
  find(r.mremap, "mremap");
}

}  // namespace

namespace detail {

const RealAllocator* resolve_real_allocator() noexcept {
  if (t_resolving) return nullptr;
  t_resolving = true;
  const RealAllocator* result;
  bool expected = false;
  if (g_claim.compare_exchange_strong(expected, true, std::memory_order_acq_rel)) {
    fill(g_real);
    g_real_ready.store(true, std::memory_order_release);
    result = &g_real;
  } else if (g_real_ready.load(std::memory_order_acquire)) {
    result = &g_real;
  } else {
    fill(t_private);
    result = &t_private;
  }
  t_resolving = false;
  return result;
}

}  // namespace detail

void* bootstrap_allocate(size_t size, size_t alignment) noexcept {
  if (alignment < kHeader) alignment = kHeader;
  if (size > kArenaBytes || (alignment & (alignment - 1)) != 0 || alignment > kArenaBytes) return nullptr;
  const size_t rounded = (size + kHeader - 1) & ~(kHeader - 1);
  size_t used = g_arena_used.load(std::memory_order_relaxed);
  size_t start;
  do {
    start = (used + kHeader + alignment - 1) & ~(alignment - 1);  // room for the header before it
    if (start + rounded > kArenaBytes) return nullptr;
  } while (!g_arena_used.compare_exchange_weak(used, start + rounded, std::memory_order_relaxed));
  *reinterpret_cast<size_t*>(g_arena + start - kHeader) = size;
  return g_arena + start;  // zeroed: the arena is static and never reused
}

bool bootstrap_owns(const void* pointer) noexcept {
  const auto p = reinterpret_cast<uintptr_t>(pointer);
  const auto base = reinterpret_cast<uintptr_t>(g_arena);
  return p >= base && p < base + kArenaBytes;
}

size_t bootstrap_size(const void* pointer) noexcept {
  return *reinterpret_cast<const size_t*>(static_cast<const char*>(pointer) - kHeader);
}

}  // namespace lumen::heap
