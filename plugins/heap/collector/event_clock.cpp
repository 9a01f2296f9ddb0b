#include "event_clock.h"

#include <time.h>

#include <atomic>

namespace lumen::heap {

namespace {

constexpr uint32_t kFineEvery = 16;

std::atomic<uint64_t> g_latest{0};  // the process's latest stamp
const volatile uint64_t* g_map_change = nullptr;
static_assert(std::atomic<uint64_t>::is_always_lock_free, "stamped in signal handlers");

__attribute__((tls_model("initial-exec"))) thread_local uint32_t t_events = 0;
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_tick = 0;  // the coarse time last seen

uint64_t read_ns(clockid_t clock) {
  timespec now;
  clock_gettime(clock, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
}

uint64_t stamp_after(uint64_t reading) {
  if (g_map_change != nullptr) {
    const uint64_t change = *g_map_change;
    if (change >= reading) reading = change + 1;
  }
  uint64_t latest = g_latest.load(std::memory_order_relaxed);
  uint64_t stamp;
  do stamp = reading > latest ? reading : latest + 1;
  while (!g_latest.compare_exchange_weak(latest, stamp, std::memory_order_seq_cst, std::memory_order_relaxed));
  return stamp;
}

}  // namespace

void event_clock_start(const lumen_runtime* runtime, uint64_t start_ns) noexcept {
  g_map_change = runtime->map_change_ns != nullptr ? runtime->map_change_ns() : nullptr;
  uint64_t latest = g_latest.load(std::memory_order_relaxed);
  while (latest < start_ns && !g_latest.compare_exchange_weak(latest, start_ns, std::memory_order_seq_cst)) {
  }
  t_events = 0;
  t_tick = 0;
}

uint64_t event_stamp() noexcept {
  const uint64_t tick = read_ns(CLOCK_MONOTONIC_COARSE);
  if (tick != t_tick || ++t_events >= kFineEvery) {
    t_tick = tick;
    t_events = 0;
    return stamp_after(read_ns(CLOCK_MONOTONIC));
  }
  return stamp_after(tick);
}

}  // namespace lumen::heap
