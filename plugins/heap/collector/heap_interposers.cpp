// The interposers: every allocation and deallocation function of the C
// library (C++ new and delete reach malloc and free), and mmap, mremap and
// munmap, which the Performance Analyzer counts as allocations too.
//
// Each forwards its arguments unchanged to the real function and returns its
// result unchanged; errno is whatever the real call left. Recording happens
// only under a TraceGuard, and a failed call records nothing (it allocated or
// freed nothing). None of these symbols has a second version in glibc, so
// plain definitions interpose on every binding.
#include <malloc.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <cstdarg>
#include <cstring>

#include "before_start.h"
#include "heap_collector.h"
#include "real_allocator.h"

using namespace lumen::heap;
using lumen::InterposedCall;

namespace {

constexpr size_t kMallocAlignment = 16;

// A successful allocation: recorded under the guard, or kept when made
// before collection started (before_start.h) with its call site, the
// return address of the interposer the program called.
void allocated(const TraceGuard& guard, Allocator allocator, const void* p, size_t size,
               const void* call_site) noexcept {
  if (guard) record_allocation(guard, allocator, p, size);
  else if (before_start_open()) before_start_allocated(allocator, p, size, call_site);
}

// The address leaves the live table before the real call: a block handed
// back can be handed out again to another thread at once, and that
// allocation must find its address free in the table.
void trace_free(void* pointer, void (*real_free)(void*)) noexcept {
  const TraceGuard guard;
  if (!guard) {
    if (before_start_open()) before_start_freed(pointer, false);
    return real_free(pointer);
  }
  const Freed freed = take_live(guard, pointer, false);
  real_free(pointer);
  record_free(guard, EventType::kFree, freed);
}

// A block from the bootstrap arena was never traced nor given to the real
// allocator: its realloc is a fresh real allocation holding a copy.
void* move_out_of_bootstrap(const RealAllocator& real, void* old, size_t size, const void* call_site) noexcept {
  const TraceGuard guard;
  void* fresh = real.malloc(size);
  if (fresh == nullptr) return nullptr;
  const size_t old_size = bootstrap_size(old);
  std::memcpy(fresh, old, old_size < size ? old_size : size);
  if (guard) record_reallocation(guard, Allocator::kRealloc, false, Freed{}, fresh, size);
  else if (before_start_open()) before_start_allocated(Allocator::kRealloc, fresh, size, call_site);
  return fresh;
}

// Before collection started the old block's release is kept with the new
// block, or as a free (realloc to 0 frees it); a failed call changed nothing.
void* untraced_realloc(const RealAllocator& real, void* old, size_t size, const void* call_site) noexcept {
  void* p = real.realloc(old, size);
  if (!before_start_open()) return p;
  if (p != nullptr) before_start_allocated(Allocator::kRealloc, p, size, call_site, old != nullptr, old);
  else if (old != nullptr && size == 0) before_start_freed(old, false);
  return p;
}

}  // namespace

LUMEN_EXPORT void* malloc(size_t size) noexcept {
  const InterposedCall in_call;
  const RealAllocator* real = real_allocator();
  if (real == nullptr) return bootstrap_allocate(size, kMallocAlignment);
  const TraceGuard guard;
  void* p = real->malloc(size);
  if (p != nullptr) allocated(guard, Allocator::kMalloc, p, size, __builtin_return_address(0));
  return p;
}

LUMEN_EXPORT void* calloc(size_t count, size_t size) noexcept {
  const InterposedCall in_call;
  const RealAllocator* real = real_allocator();
  size_t bytes = 0;
  const bool overflow = __builtin_mul_overflow(count, size, &bytes);
  if (real == nullptr) return overflow ? nullptr : bootstrap_allocate(bytes, kMallocAlignment);
  const TraceGuard guard;
  void* p = real->calloc(count, size);
  if (p != nullptr) allocated(guard, Allocator::kCalloc, p, bytes, __builtin_return_address(0));
  return p;
}

LUMEN_EXPORT void* realloc(void* old, size_t size) noexcept {
  const InterposedCall in_call;
  const RealAllocator* real = real_allocator();
  if (real == nullptr) {
    void* fresh = bootstrap_allocate(size, kMallocAlignment);
    if (fresh != nullptr && old != nullptr) std::memcpy(fresh, old, bootstrap_size(old) < size ? bootstrap_size(old) : size);
    return fresh;
  }
  if (bootstrap_owns(old)) return move_out_of_bootstrap(*real, old, size, __builtin_return_address(0));
  const TraceGuard guard;
  if (!guard) return untraced_realloc(*real, old, size, __builtin_return_address(0));
  const Freed freed = old != nullptr ? take_live(guard, old, false) : Freed{};
  void* p = real->realloc(old, size);
  if (p != nullptr) record_reallocation(guard, Allocator::kRealloc, old != nullptr, freed, p, size);
  else if (old != nullptr && size == 0) record_free(guard, EventType::kFree, freed);  // glibc freed it
  else if (old != nullptr) restore_live(guard, freed, old, false);  // failed: the old block stays
  return p;
}

LUMEN_EXPORT void free(void* pointer) noexcept {
  const InterposedCall in_call;
  if (bootstrap_owns(pointer)) return;
  const RealAllocator* real = real_allocator();
  if (real == nullptr) return;  // only the arena exists yet: nothing else can be freed
  if (pointer == nullptr) return real->free(pointer);
  trace_free(pointer, real->free);
}

LUMEN_EXPORT void* memalign(size_t alignment, size_t size) noexcept {
  const InterposedCall in_call;
  const RealAllocator* real = real_allocator();
  if (real == nullptr) return bootstrap_allocate(size, alignment);
  const TraceGuard guard;
  void* p = real->memalign(alignment, size);
  if (p != nullptr) allocated(guard, Allocator::kMemalign, p, size, __builtin_return_address(0));
  return p;
}

LUMEN_EXPORT int posix_memalign(void** result, size_t alignment, size_t size) noexcept {
  const InterposedCall in_call;
  const RealAllocator* real = real_allocator();
  if (real == nullptr) {
    if (alignment < sizeof(void*) || (alignment & (alignment - 1)) != 0) return EINVAL;
    void* p = bootstrap_allocate(size, alignment);
    if (p == nullptr) return ENOMEM;
    *result = p;
    return 0;
  }
  const TraceGuard guard;
  const int rc = real->posix_memalign(result, alignment, size);
  if (rc == 0) allocated(guard, Allocator::kPosixMemalign, *result, size, __builtin_return_address(0));
  return rc;
}

LUMEN_EXPORT void* aligned_alloc(size_t alignment, size_t size) noexcept {
  const InterposedCall in_call;
  const RealAllocator* real = real_allocator();
  if (real == nullptr) return bootstrap_allocate(size, alignment);
  const TraceGuard guard;
  void* p = real->aligned_alloc(alignment, size);
  if (p != nullptr) allocated(guard, Allocator::kAlignedAlloc, p, size, __builtin_return_address(0));
  return p;
}

LUMEN_EXPORT void* valloc(size_t size) noexcept {
  const InterposedCall in_call;
  const RealAllocator* real = real_allocator();
  if (real == nullptr) return bootstrap_allocate(size, 4096);
  const TraceGuard guard;
  void* p = real->valloc(size);
  if (p != nullptr) allocated(guard, Allocator::kValloc, p, size, __builtin_return_address(0));
  return p;
}

// Recorded with the size asked for, like every other call (pvalloc rounds it
// up to whole pages).
LUMEN_EXPORT void* pvalloc(size_t size) noexcept {
  const InterposedCall in_call;
  const RealAllocator* real = real_allocator();
  if (real == nullptr) return bootstrap_allocate(size, 4096);
  const TraceGuard guard;
  void* p = real->pvalloc(size);
  if (p != nullptr) allocated(guard, Allocator::kPvalloc, p, size, __builtin_return_address(0));
  return p;
}

namespace {

void* trace_mmap(void* (*real_mmap)(void*, size_t, int, int, int, off_t), void* address, size_t length,
                 int protection, int flags, int fd, off_t offset, const void* call_site) noexcept {
  const TraceGuard guard;
  void* p = real_mmap(address, length, protection, flags, fd, offset);
  if (p != MAP_FAILED) allocated(guard, Allocator::kMmap, p, length, call_site);
  return p;
}

}  // namespace

LUMEN_EXPORT void* mmap(void* address, size_t length, int protection, int flags, int fd, off_t offset) noexcept {
  const InterposedCall in_call;
  const RealAllocator* real = real_allocator();
  if (real == nullptr) return MAP_FAILED;  // dlsym does not map memory
  return trace_mmap(real->mmap, address, length, protection, flags, fd, offset, __builtin_return_address(0));
}

LUMEN_EXPORT void* mmap64(void* address, size_t length, int protection, int flags, int fd, off_t offset) noexcept {
  const InterposedCall in_call;
  const RealAllocator* real = real_allocator();
  if (real == nullptr) return MAP_FAILED;
  return trace_mmap(real->mmap64, address, length, protection, flags, fd, offset, __builtin_return_address(0));
}

// Only the unmapping of a whole mapping from its start pairs with its mmap;
// the host ignores an address it does not know.
LUMEN_EXPORT int munmap(void* address, size_t length) noexcept {
  const InterposedCall in_call;
  const RealAllocator* real = real_allocator();
  if (real == nullptr) return -1;
  const TraceGuard guard;
  if (!guard) {
    if (before_start_open()) before_start_freed(address, true);
    return real->munmap(address, length);
  }
  const Freed freed = take_live(guard, address, true);
  const int rc = real->munmap(address, length);
  if (rc == 0) record_free(guard, EventType::kUnmap, freed);
  else restore_live(guard, freed, address, true);
  return rc;
}

// A moved or resized mapping is a reallocation of the old one; one that
// leaves the old mapping in place (old size 0, MREMAP_DONTUNMAP) is a new one.
LUMEN_EXPORT void* mremap(void* old, size_t old_length, size_t length, int flags, ...) noexcept {
  const InterposedCall in_call;
  va_list arguments;
  va_start(arguments, flags);
  void* wanted = (flags & MREMAP_FIXED) != 0 ? va_arg(arguments, void*) : nullptr;
  va_end(arguments);
  const RealAllocator* real = real_allocator();
  if (real == nullptr) return MAP_FAILED;
  bool keeps_old = old_length == 0;
#ifdef MREMAP_DONTUNMAP
  keeps_old = keeps_old || (flags & MREMAP_DONTUNMAP) != 0;
#endif
  const TraceGuard guard;
  if (!guard) {
    void* p = real->mremap(old, old_length, length, flags, wanted);
    if (p != MAP_FAILED && before_start_open())
      before_start_allocated(Allocator::kMremap, p, length, __builtin_return_address(0), !keeps_old, old);
    return p;
  }
  const Freed freed = keeps_old ? Freed{} : take_live(guard, old, true);
  void* p = real->mremap(old, old_length, length, flags, wanted);
  if (p != MAP_FAILED) record_reallocation(guard, Allocator::kMremap, !keeps_old, freed, p, length);
  else if (!keeps_old) restore_live(guard, freed, old, true);
  return p;
}
