#include "thread_slots.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <type_traits>

namespace lumen::states {

namespace {

// Zero-filled storage (.bss) that no initializer writes as the plugin is
// loaded: the slots' constructors wrote all 5 MB of them, 1,200 page
// faults and 30 ms of every start (more on a busy machine, and all of it
// inside an attach's pause), and the pages stayed resident. A slot's phase
// reads kFree (0) until claim_slot gives it every field it is read by.
union SlotStorage {
  constexpr SlotStorage() {}
  ThreadSlot slot;
};
static_assert(kFree == 0, "an untouched slot is free");
static_assert(std::is_trivially_destructible_v<ThreadSlot>, "no destructor runs at exit either");
SlotStorage g_storage[kMaxThreads];
std::atomic<int> g_high_water{0};  // slots at and above are untouched

}  // namespace

ThreadSlot* claim_slot(uint32_t tid, uint64_t now_ns, const volatile lumen_latest_stacks* latest_stacks) {
  for (int i = 0; i < kMaxThreads; ++i) {
    int expected = kFree;
    // kReading here keeps the sampler out until the slot is filled.
    ThreadSlot& claimed = slot_at(i);
    if (!claimed.phase.compare_exchange_strong(expected, kReading, std::memory_order_acquire)) continue;
    claimed.tid = tid;
    claimed.next_tick.store(0, std::memory_order_relaxed);
    claimed.idle.store(false, std::memory_order_relaxed);
    claimed.idle_readings = 0;
    claimed.clock_seen_ns = 0;
    claimed.clock_seen_tick = 0;
    claimed.clock_weighed_ns = 0;
    claimed.clock_weighed_tick = 0;
    claimed.quiet_mark = 0;
    claimed.quiet_marked = false;
    claimed.latest_stacks = latest_stacks;
    claimed.history = History{};
    claimed.history.last_ns = now_ns;
    int high = g_high_water.load(std::memory_order_relaxed);
    while (high < i + 1 && !g_high_water.compare_exchange_weak(high, i + 1, std::memory_order_relaxed)) {
    }
    return &claimed;
  }
  return nullptr;
}

static_assert(sizeof(std::atomic<int>) == sizeof(int), "a phase is a futex word");

static int* futex_word(ThreadSlot& slot) { return reinterpret_cast<int*>(&slot.phase); }

void release_slot(ThreadSlot& slot, int phase) {
  const int was = slot.phase.exchange(phase, std::memory_order_acq_rel);
  if (was == kReadingAwaited || was == kEndingAwaited)
    syscall(SYS_futex, futex_word(slot), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
}

int await_slot(ThreadSlot& slot, int held) {
  const int awaited = held == kReading ? kReadingAwaited : kEndingAwaited;
  for (;;) {
    int phase = slot.phase.load(std::memory_order_acquire);
    if (phase == held && !slot.phase.compare_exchange_strong(phase, awaited, std::memory_order_acq_rel)) continue;
    if (phase != held && phase != awaited) return phase;
    // A release between the mark and the wait changes the word: no sleep.
    syscall(SYS_futex, futex_word(slot), FUTEX_WAIT_PRIVATE, awaited, nullptr, nullptr, 0);
  }
}

void publish_slot(ThreadSlot& slot) { slot.phase.store(kLive, std::memory_order_release); }

int slot_count() { return g_high_water.load(std::memory_order_acquire); }

ThreadSlot& slot_at(int index) { return g_storage[index].slot; }

void forget_all_slots() {
  const int count = slot_count();
  for (int i = 0; i < count; ++i) {
    ThreadSlot& forgotten = slot_at(i);
    forgotten.history = History{};
    forgotten.tid = 0;
    forgotten.phase.store(kFree, std::memory_order_release);
  }
}

}  // namespace lumen::states
