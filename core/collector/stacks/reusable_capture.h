// A traced call's stack, reused from one call to the next at a call site
// while everything its unwinding read is unchanged.
//
// capture_stack unwinds with libunwind's local interface, which reads
// registers and memory where it likes. Here libunwind's generic (remote)
// interface unwinds this thread through accessors of our own, which record
// its read set: each register it asks for, and each word it reads outside
// a loaded object's read-only segments (code and unwind tables, fixed while
// the object snapshot is). libunwind, with no caching, is a deterministic
// function of those answers, so when every one of them is the same again
// (and the objects, the stack table and the frames left out are), the
// unwinding would give the same frames: the stack id is returned without
// unwinding.
#pragma once

#include <lumen/collector_plugin.h>

#include <cstdint>

namespace lumen::collector {

// Not signal-safe: creates libunwind's address space (malloc). Called by
// stack_capture_init; before it, captures are plain ones.
void reusable_capture_init();

// [signal-safe] The word holding the time of the latest load-object map
// change (loadobject_tracker.h): a cache filled before it is not trusted.
void reusable_capture_watch_map_changes(const volatile uint64_t* map_change_ns);

// Not signal-safe (a signal handler never calls it; one that interrupts it
// may capture with capture_stack). capture_stack(nullptr, skip) with the
// read set kept in `cache` (zero-filled by its owner, one per call site and
// thread): the caller of the function calling this is the leaf, `skip`
// further frames dropped. The calling thread's latest stack is kept as
// capture_stack keeps it.
uint64_t capture_stack_reusing(lumen_capture_cache* cache, int skip);

// How many calls on `cache` were answered from it and how many unwound
// (for tests and measurements).
struct ReuseCounts {
  uint64_t reused;
  uint64_t unwound;
};
ReuseCounts reuse_counts(const lumen_capture_cache* cache);

}  // namespace lumen::collector
