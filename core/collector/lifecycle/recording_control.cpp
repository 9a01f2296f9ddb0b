#include "lifecycle/recording_control.h"

#include <signal.h>

#include <atomic>
#include <cstdint>

#include "time/clock.h"
#include "signals/signal_chain.h"
#include "recording/stream_writer.h"

namespace lumen::collector {

namespace {

int g_pause_signal = 0;
std::atomic<bool> g_paused{false};
static_assert(std::atomic<bool>::is_always_lock_free, "read in handlers");
// The collection window in CLOCK_MONOTONIC; 0 and UINT64_MAX when none.
uint64_t g_window_begin_ns = 0;
uint64_t g_window_end_ns = UINT64_MAX;

int on_pause_signal(int signal, siginfo_t* info, void*) {
  if (signal != g_pause_signal || info->si_code == SI_TIMER) return 0;
  g_paused.store(!g_paused.load(std::memory_order_acquire), std::memory_order_release);
  return target_wants(signal) ? 0 : 1;  // as -l's (sample_points.cpp)
}

}  // namespace

void recording_control_start(const metadata::CollectionPlan& plan) {
  const metadata::RuntimeSettings& r = plan.runtime;
  g_pause_signal = r.pause_signal;
  g_paused.store(r.start_paused, std::memory_order_release);
  if (r.window_start_ns > 0 || r.window_end_ns > 0) {
    const uint64_t origin = plan.origin_ns > 0 ? uint64_t(plan.origin_ns) : monotonic_ns();
    g_window_begin_ns = origin + uint64_t(r.window_start_ns);
    if (r.window_end_ns > 0) g_window_end_ns = origin + uint64_t(r.window_end_ns);
  }
  if (g_pause_signal > 0) claim_signal(g_pause_signal, on_pause_signal);
}

bool inside_window() {
  if (g_window_begin_ns == 0 && g_window_end_ns == UINT64_MAX) return true;
  const uint64_t now = monotonic_ns();
  return now >= g_window_begin_ns && now < g_window_end_ns;
}

bool paused() {
  return g_paused.load(std::memory_order_acquire) || size_limit_reached() || !inside_window();
}
void set_paused(bool value) { g_paused.store(value, std::memory_order_release); }

}  // namespace lumen::collector
