#include "thread_slots.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>

namespace lumen::states {

namespace {

ThreadSlot g_slots[kMaxThreads];
std::atomic<int> g_high_water{0};  // slots at and above are untouched

}  // namespace

ThreadSlot* claim_slot(uint32_t tid, uint64_t now_ns, const volatile lumen_latest_stacks* latest_stacks) {
  for (int i = 0; i < kMaxThreads; ++i) {
    int expected = kFree;
    // kReading here keeps the sampler out until the slot is filled.
    if (!g_slots[i].phase.compare_exchange_strong(expected, kReading, std::memory_order_acquire)) continue;
    ThreadSlot& slot = g_slots[i];
    slot.tid = tid;
    slot.next_tick.store(0, std::memory_order_relaxed);
    slot.idle.store(false, std::memory_order_relaxed);
    slot.idle_readings = 0;
    slot.clock_seen_tick = 0;
    slot.clock_weighed_tick = 0;
    slot.quiet_marked = false;
    slot.latest_stacks = latest_stacks;
    slot.history = History{};
    slot.history.last_ns = now_ns;
    int high = g_high_water.load(std::memory_order_relaxed);
    while (high < i + 1 && !g_high_water.compare_exchange_weak(high, i + 1, std::memory_order_relaxed)) {
    }
    return &slot;
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

ThreadSlot& slot_at(int index) { return g_slots[index]; }

void forget_all_slots() {
  const int count = slot_count();
  for (int i = 0; i < count; ++i) {
    History& h = g_slots[i].history;
    h = History{};
    g_slots[i].tid = 0;
    g_slots[i].phase.store(kFree, std::memory_order_release);
  }
}

}  // namespace lumen::states
