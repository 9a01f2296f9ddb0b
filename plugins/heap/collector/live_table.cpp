#include "live_table.h"

#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstddef>

namespace lumen::heap {

namespace {

constexpr size_t kStripes = 256;
constexpr size_t kFirstSlots = 256;  // per stripe: 10 KiB, all mapped at start (live_start)

struct alignas(64) Stripe {
  std::atomic<uint32_t> lock{0};
  uint32_t used = 0;
  size_t capacity = 0;  // a power of two
  LiveEntry* slots = nullptr;
};
Stripe g_stripes[kStripes];
// Every stripe's first table, one mapping (live_start): a piece of it is
// not unmapped on its own (an entry is not a divisor of a page).
LiveEntry* g_first = nullptr;
constexpr size_t kFirstBytes = kStripes * kFirstSlots * sizeof(LiveEntry);
bool in_first(const LiveEntry* slots) {
  return g_first != nullptr && slots >= g_first && slots < g_first + kStripes * kFirstSlots;
}
static_assert(std::atomic<uint32_t>::is_always_lock_free, "taken from interposers");

uint64_t hash(uint64_t key) {
  const uint64_t h = (key >> 4) * 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 31);
}

// By system call: the plugin's own memory is not an allocation of the target.
LiveEntry* map_slots(size_t count) {
  const long result = syscall(SYS_mmap, nullptr, count * sizeof(LiveEntry), PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  return result < 0 && result > -4096 ? nullptr : reinterpret_cast<LiveEntry*>(result);  // zeroed: empty
}

class Locked {
 public:
  // Test and test-and-set: a waiter reads the lock until it looks free, so
  // that it does not take the line from its holder at every try.
  explicit Locked(Stripe& s) : s_(s) {
    for (int spins = 0; s_.lock.exchange(1, std::memory_order_acquire) != 0;)
      while (s_.lock.load(std::memory_order_relaxed) != 0) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#endif
        if (++spins % 64 == 0) sched_yield();  // its holder was preempted
      }
  }
  ~Locked() { s_.lock.store(0, std::memory_order_release); }

 private:
  Stripe& s_;
};

// Stripes in groups: a group by the 64 MiB region the address is in (a
// glibc thread arena is one such region), a stripe within it by the
// address's hash. A thread's own blocks then mostly take stripes, and
// their lock and slot lines, that other threads' blocks do not: those
// lines stay on its CPU instead of moving at every event.
constexpr unsigned kRegionShift = 26;
constexpr size_t kGroupStripes = 16;
constexpr unsigned kGroupBits = 4;
static_assert(kGroupStripes << kGroupBits == kStripes, "every stripe in one group");
Stripe& stripe_of(uint64_t key, uint64_t h) {
  const uint64_t group = ((key >> kRegionShift) * 0x9e3779b97f4a7c15ull) >> (64 - kGroupBits);
  return g_stripes[group * kGroupStripes + (h >> 56) % kGroupStripes];
}

// The slot holding `key`, or the empty one where it would go.
size_t find(const Stripe& s, uint64_t key, uint64_t h) {
  const size_t mask = s.capacity - 1;
  size_t i = h & mask;
  while (s.slots[i].key != 0 && s.slots[i].key != key) i = (i + 1) & mask;
  return i;
}

bool grow(Stripe& s) {
  const size_t capacity = s.capacity == 0 ? kFirstSlots : s.capacity * 2;
  LiveEntry* fresh = map_slots(capacity);
  if (fresh == nullptr) return false;
  LiveEntry* old = s.slots;
  const size_t old_capacity = s.capacity;
  s.slots = fresh;
  s.capacity = capacity;
  for (size_t i = 0; i < old_capacity; ++i)
    if (old[i].key != 0) s.slots[find(s, old[i].key, hash(old[i].key))] = old[i];
  if (old != nullptr && !in_first(old)) syscall(SYS_munmap, old, old_capacity * sizeof(LiveEntry));
  return true;
}

}  // namespace

bool live_start() noexcept {
  // One mapping for every stripe's first table, made before the program
  // is traced: mapping memory later, a piece at a time, could take the
  // place of a library the program just unloaded, and the next library
  // would be loaded elsewhere than without tracing.
  LiveEntry* first = map_slots(kStripes * kFirstSlots);
  if (first == nullptr) return false;
  g_first = first;
  for (size_t i = 0; i < kStripes; ++i) {
    g_stripes[i].slots = first + i * kFirstSlots;
    g_stripes[i].capacity = kFirstSlots;
    g_stripes[i].used = 0;
  }
  return true;
}

bool live_insert(const LiveEntry& entry, LiveEntry& replaced) noexcept {
  const uint64_t h = hash(entry.key);
  Stripe& s = stripe_of(entry.key, h);
  const Locked locked(s);
  if ((s.used + 1) * 2 > s.capacity && !grow(s)) return false;
  const size_t i = find(s, entry.key, h);
  const bool was_live = s.slots[i].key == entry.key;
  if (was_live) replaced = s.slots[i];
  else ++s.used;
  s.slots[i] = entry;
  return was_live;
}

bool live_remove(uint64_t key, LiveEntry& removed) noexcept {
  const uint64_t h = hash(key);
  Stripe& s = stripe_of(key, h);
  const Locked locked(s);
  if (s.capacity == 0) return false;
  const size_t mask = s.capacity - 1;
  size_t i = find(s, key, h);
  if (s.slots[i].key != key) return false;
  removed = s.slots[i];
  --s.used;
  // Backward shift: later entries of the run move up so no probe stops early.
  for (size_t j = (i + 1) & mask; s.slots[j].key != 0; j = (j + 1) & mask) {
    const size_t home = hash(s.slots[j].key) & mask;
    // j's entry may fill the hole at i when its home is not in (i, j].
    if (((j - home) & mask) >= ((j - i) & mask)) {
      s.slots[i] = s.slots[j];
      i = j;
    }
  }
  s.slots[i] = LiveEntry{};
  return true;
}

void live_forget_after_fork() noexcept {
  for (Stripe& s : g_stripes) {
    s.lock.store(0, std::memory_order_relaxed);
    if (s.slots != nullptr && !in_first(s.slots)) syscall(SYS_munmap, s.slots, s.capacity * sizeof(LiveEntry));
    s.slots = nullptr;
    s.capacity = 0;
    s.used = 0;
  }
  if (g_first != nullptr) syscall(SYS_munmap, g_first, kFirstBytes);  // not copied on write
  g_first = nullptr;
}

}  // namespace lumen::heap
