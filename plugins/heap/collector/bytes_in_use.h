// The process's bytes in use as the collector counts them, and their
// highest value so far: one 16-byte word, on a cache line of its own, that
// every event changes with one successful compare-and-swap, so that the
// events' order at this word is one order of the whole process and the peak
// is exact (docs/architecture.md, the heap pairing rule).
#pragma once

#include <cstdint>

namespace lumen::heap {

// [signal-safe, lock-free] Adds `delta` to the bytes in use. Returns the
// highest value the bytes in use have had, this change included; `raised`
// is set when this change made it.
uint64_t bytes_in_use_change(int64_t delta, bool& raised) noexcept;

// In a forked child: its collection starts from nothing in use.
void bytes_in_use_forget_after_fork() noexcept;

}  // namespace lumen::heap
