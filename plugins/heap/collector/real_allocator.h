// The allocation functions the interposers forward to: the next definition
// after this object (dlsym RTLD_NEXT: libc's, or another preloaded
// allocator's), found on first use.
//
// dlsym may itself allocate (calloc) before anything is known; such calls,
// made on the thread that is resolving, are served from a small static arena
// whose blocks are never handed to the real allocator: free() ignores them and
// realloc() moves them into real memory.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstddef>

namespace lumen::heap {

struct RealAllocator {
  void* (*malloc)(size_t);
  void* (*calloc)(size_t, size_t);
  void* (*realloc)(void*, size_t);
  void (*free)(void*);
  void* (*memalign)(size_t, size_t);
  int (*posix_memalign)(void**, size_t, size_t);
  void* (*aligned_alloc)(size_t, size_t);
  void* (*valloc)(size_t);
  void* (*pvalloc)(size_t);
  void* (*mmap)(void*, size_t, int, int, int, off_t);
  void* (*mmap64)(void*, size_t, int, int, int, off_t);
  int (*munmap)(void*, size_t);
  void* (*mremap)(void*, size_t, size_t, int, ...);
};

namespace detail {
extern RealAllocator g_real;
extern std::atomic<bool> g_real_ready;
const RealAllocator* resolve_real_allocator() noexcept;
}  // namespace detail

// [signal-safe once resolved] The real functions, or nullptr while this
// thread is inside their resolution (then use the bootstrap arena).
inline const RealAllocator* real_allocator() noexcept {
  if (__builtin_expect(detail::g_real_ready.load(std::memory_order_acquire), 1)) return &detail::g_real;
  return detail::resolve_real_allocator();
}

// The bootstrap arena: zeroed memory, `alignment` a power of two.
void* bootstrap_allocate(size_t size, size_t alignment) noexcept;
bool bootstrap_owns(const void* pointer) noexcept;
// Bytes usable at a bootstrap block (what it was allocated with).
size_t bootstrap_size(const void* pointer) noexcept;

}  // namespace lumen::heap
