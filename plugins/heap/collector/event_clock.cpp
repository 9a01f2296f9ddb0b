#include "event_clock.h"

#include <time.h>

namespace lumen::heap {

namespace {

constexpr uint32_t kFineEvery = 16;

const volatile uint64_t* g_map_change = nullptr;
const volatile uint64_t* (*g_latest_now_of_thread)(void) = nullptr;
uint64_t g_start_ns = 0;
const volatile uint64_t kNoReading = 0;

__attribute__((tls_model("initial-exec"))) thread_local uint32_t t_events = 0;
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_tick = 0;  // the coarse time last seen
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_fine = 0;  // the fine time last read
__attribute__((tls_model("initial-exec"))) thread_local const volatile uint64_t* t_runtime_reading = nullptr;

uint64_t read_ns(clockid_t clock) {
  timespec now;
  clock_gettime(clock, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(now.tv_nsec);
}

}  // namespace

void event_clock_start(const lumen_runtime* runtime, uint64_t start_ns) noexcept {
  g_map_change = runtime->time->map_change_ns != nullptr ? runtime->time->map_change_ns() : nullptr;
  g_latest_now_of_thread = runtime->time->latest_now_of_thread;
  g_start_ns = start_ns;
  t_events = 0;
  t_tick = 0;
  t_fine = 0;
}

uint64_t clock_now() noexcept {
  const uint64_t tick = read_ns(CLOCK_MONOTONIC_COARSE);
  if (tick != t_tick || ++t_events >= kFineEvery) {
    t_tick = tick;
    t_events = 0;
    t_fine = read_ns(CLOCK_MONOTONIC);
  }
  const uint64_t now = t_fine > tick ? t_fine : tick;
  return now > g_start_ns ? now : g_start_ns + 1;
}

uint64_t map_change_ns() noexcept { return g_map_change != nullptr ? *g_map_change : 0; }

uint64_t latest_runtime_reading() noexcept {
  if (t_runtime_reading == nullptr)
    t_runtime_reading = g_latest_now_of_thread != nullptr ? g_latest_now_of_thread() : &kNoReading;
  return *t_runtime_reading;
}

}  // namespace lumen::heap
