// What the program allocated and freed before collection started.
//
// collect preloads this half with the runtime, so its interposers see the
// program's calls from the first one on; the runtime starts the plugin
// from its own constructor, after those of the libraries it depends on and
// of the program's own libraries (libstdc++'s emergency exception pool,
// allocated in its initializer, is one such block, live all run). Until the
// runtime's constructor begins (lumen_runtime_began) each call is kept in a
// fixed table of static memory (no allocation, no lock); start() replays
// the table into the batches before tracing begins, so those allocations
// count like any other, are made live (frees after start pair with them),
// and weigh in the bytes in use. They carry the time of start and, for a
// stack, their call site alone (the unwinder is the runtime's, not set up
// yet): the function that called the allocator, under <Truncated-stack>. From the runtime's
// constructor until start(), calls are the runtime's own setting up.
#pragma once

#include <cstddef>

#include "../heap_record.h"

namespace lumen::heap {

// [signal-safe] True while calls are kept: the runtime is loaded and its
// constructor has not begun.
bool before_start_open() noexcept;

// [signal-safe] An allocation that succeeded (after its real call): a
// realloc or mremap that released `old` says so with `frees`.
// `call_site` is the return address into the caller of the allocator.
void before_start_allocated(Allocator allocator, const void* address, size_t size, const void* call_site,
                            bool frees = false, const void* old = nullptr) noexcept;

// [signal-safe] A free or unmapping, before its real call (so that a block
// handed out again is kept after its free).
void before_start_freed(const void* address, bool mapping) noexcept;

// A kept call, in the order they were made.
struct KeptCall {
  EventType type;  // kAlloc, kRealloc, kFree or kUnmap
  Allocator allocator;
  bool frees;  // kRealloc: `old` was released
  const void* address;
  const void* old;
  size_t size;
  const void* call_site;  // allocations: the return address into their caller
};

// Not signal-safe: from start(), before tracing begins. Closes the table for
// good and visits the calls it kept, in order; returns how many calls it had
// no room for.
size_t before_start_close(void (*visit)(const KeptCall&)) noexcept;

}  // namespace lumen::heap
