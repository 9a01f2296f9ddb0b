// The process's live allocations, for pairing frees with allocations as
// they happen (the paired form, ../heap_paired.h).
//
// Keyed by address (a mapping's with bit 63 set, apart from heap blocks),
// each entry says which allocation holds the address: its thread's id and
// ordinal, its size, and the time mark it was recorded under. Exact without
// any time order because of where the interposers call it: a free removes
// its address BEFORE the real free (so the allocator cannot hand the address
// out again while it is still here), and an allocation is inserted AFTER the
// real call returned and after its event was appended (so whoever finds it
// here frees an allocation already recorded, marked no later than the
// entry says).
//
// Striped by address (a group of 16 stripes by the address's 64 MiB region,
// so that a thread's blocks in its own allocator arena mostly take stripes
// of their own; a stripe in it by hash), a spin lock per stripe held for
// one probe; each
// stripe an open-addressed table (linear probing, backward-shift deletion)
// in raw mmap memory that doubles when half full: never the target's
// malloc. [signal-safe only where the TraceGuard keeps a handler on the same
// thread from entering: the interposers hold it around every call here.]
#pragma once

#include <cstdint>

namespace lumen::heap {

struct LiveEntry {
  uint64_t key;  // 0: empty
  uint64_t ordinal;
  uint64_t size;
  uint64_t mark_ns;
  uint32_t thread_id;
  uint32_t reserved;
};

inline constexpr uint64_t kMappingKeyBit = 1ull << 63;
inline uint64_t live_key(const void* address, bool mapping) {
  return reinterpret_cast<uint64_t>(address) | (mapping ? kMappingKeyBit : 0);
}

// Not signal-safe: at start (and in a forked child, after
// live_forget_after_fork). Maps every stripe's first table at once; without
// it (or when it fails) each stripe maps its own on its first insert.
bool live_start() noexcept;

// Inserts `entry`; when its key was live, the entry it replaces (an
// allocation released unseen) is copied to `replaced` and true returned.
// An entry that cannot be stored (no memory) is dropped: its free will be
// recorded by address.
bool live_insert(const LiveEntry& entry, LiveEntry& replaced) noexcept;

// Removes `key`; true, with its entry, when it was live.
bool live_remove(uint64_t key, LiveEntry& removed) noexcept;

// In a forked child: the entries are the parent's allocations (their
// identities mean nothing in the child's own data), and a stripe may have
// been locked by a parent thread that does not exist here.
void live_forget_after_fork() noexcept;

}  // namespace lumen::heap
