#include "thread_slots.h"

namespace lumen::states {

namespace {

ThreadSlot g_slots[kMaxThreads];
std::atomic<int> g_high_water{0};  // slots at and above are untouched

}  // namespace

ThreadSlot* claim_slot(uint32_t tid, uint64_t now_ns, const volatile uint64_t* latest_stack) {
  for (int i = 0; i < kMaxThreads; ++i) {
    int expected = kFree;
    // kReading here keeps the sampler out until the slot is filled.
    if (!g_slots[i].phase.compare_exchange_strong(expected, kReading, std::memory_order_acquire)) continue;
    ThreadSlot& slot = g_slots[i];
    slot.tid = tid;
    slot.latest_stack = latest_stack;
    slot.history = History{};
    slot.history.last_ns = now_ns;
    int high = g_high_water.load(std::memory_order_relaxed);
    while (high < i + 1 && !g_high_water.compare_exchange_weak(high, i + 1, std::memory_order_relaxed)) {
    }
    return &slot;
  }
  return nullptr;
}

void publish_slot(ThreadSlot& slot) { slot.phase.store(kLive, std::memory_order_release); }

int slot_count() { return g_high_water.load(std::memory_order_acquire); }

ThreadSlot& slot_at(int index) { return g_slots[index]; }

void forget_all_slots(void (*close_fd)(int)) {
  const int count = slot_count();
  for (int i = 0; i < count; ++i) {
    History& h = g_slots[i].history;
    for (int fd : {h.schedstat_fd, h.stat_fd, h.syscall_fd})
      if (fd >= 0) close_fd(fd);
    h = History{};
    g_slots[i].tid = 0;
    g_slots[i].phase.store(kFree, std::memory_order_release);
  }
}

}  // namespace lumen::states
