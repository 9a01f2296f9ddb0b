#include "threads/own_threads_alive.h"

#include <atomic>

#include "threads/program_thread_state.h"

namespace lumen::collector {

namespace {

// A handful at most: the sample thread, the /proc reader, up to 8 periodic
// threads, a few plugin threads. One past that is not listed (a caller
// then explains less, never more).
constexpr size_t kMaxCollectorThreads = 32;
std::atomic<uint32_t> g_tids[kMaxCollectorThreads];
// Those that ended their listing, until a detach saw them gone: each still
// runs the runtime's code (and uses its thread state) for a while after.
std::atomic<uint32_t> g_ended[kMaxCollectorThreads];

size_t listed_ids(const std::atomic<uint32_t> (&list)[kMaxCollectorThreads], uint32_t* tids, size_t capacity) {
  size_t count = 0;
  for (const auto& slot : list) {
    const uint32_t tid = slot.load(std::memory_order_acquire);
    if (tid != 0 && count < capacity) tids[count++] = tid;
  }
  return count;
}

}  // namespace

bool collector_thread_begins() { return collector_thread_created(current_tid()); }

bool collector_thread_created(uint32_t tid) {
  for (const auto& slot : g_tids)
    if (slot.load(std::memory_order_acquire) == tid) return false;  // listed already (own_thread_start.cpp)
  for (auto& slot : g_tids) {
    uint32_t expected = 0;
    if (slot.compare_exchange_strong(expected, tid, std::memory_order_acq_rel)) return true;
  }
  return false;
}

void collector_thread_ends() {
  const uint32_t tid = current_tid();
  retire_thread_state();
  for (auto& ended : g_ended) {
    uint32_t expected = 0;
    if (ended.compare_exchange_strong(expected, tid, std::memory_order_acq_rel)) break;
  }
  for (auto& slot : g_tids) {
    uint32_t expected = tid;
    if (slot.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) return;
  }
}

size_t ended_collector_thread_ids(uint32_t* tids, size_t capacity) { return listed_ids(g_ended, tids, capacity); }

void forget_ended_collector_threads() {
  for (auto& slot : g_ended) slot.store(0, std::memory_order_relaxed);
}

size_t collector_thread_ids(uint32_t* tids, size_t capacity) { return listed_ids(g_tids, tids, capacity); }

bool is_collector_thread() {
  const uint32_t tid = current_tid();
  for (const auto& slot : g_tids)
    if (slot.load(std::memory_order_acquire) == tid) return true;
  return false;
}

void forget_collector_threads() {
  for (auto& slot : g_tids) slot.store(0, std::memory_order_relaxed);
  forget_ended_collector_threads();
}

}  // namespace lumen::collector
