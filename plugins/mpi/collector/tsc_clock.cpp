// The TSC clock of traced MPI calls (tsc_clock.h).
#include "tsc_clock.h"

#include <time.h>

#include <atomic>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

namespace lumen::mpi::tsc_clock {

namespace {

// Nanoseconds a tick, scaled by 2^kRateShift; 0 until known. With an
// anchor at most kReanchorNs old, ticks x rate stays below 2^64.
constexpr int kRateShift = 32;
// An anchor whose TSC reads before and after clock_gettime lie further
// apart than this (the thread was preempted between them) is read again.
constexpr uint64_t kMaxAnchorSpreadTicks = 20'000;
constexpr int kAnchorAttempts = 4;
// The rate is first measured this long after the first anchor (stamps are
// clock_gettime until then), and an anchor is kept at most 1/kAnchorShare
// of the time since the first anchor: the rate's error, two anchors' error
// over that time, then costs a stamp about 2/kAnchorShare of one anchor's.
constexpr uint64_t kFirstRateNs = 1'000'000;
constexpr uint64_t kAnchorShare = 64;

// Written by init() before any stamp is taken, then only read.
bool g_use_tsc = false;
uint64_t g_base_tsc = 0;
uint64_t g_base_ns = 0;

std::atomic<uint64_t> g_rate{0};
std::atomic<uint64_t> g_reanchor_ticks{0};  // kReanchorNs in ticks; 0 until the rate is known
std::atomic<uint64_t> g_anchors{0};
std::atomic<uint64_t> g_largest_step_ns{0};

// Initial-exec: the half is preloaded; no __tls_get_addr on each stamp.
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_anchor_tsc = 0;
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_anchor_ns = 0;
__attribute__((tls_model("initial-exec"))) thread_local uint64_t t_last_ns = 0;

uint64_t read_tsc() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return 0;
#endif
}

bool invariant_tsc() {
#if defined(__x86_64__)
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0 || (edx & (1u << 4)) == 0) return false;  // no TSC
  if (__get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (edx & (1u << 8)) != 0;
#else
  return false;
#endif
}

// A (TSC, CLOCK_MONOTONIC) pair read together: the TSC's value halfway
// between its reads around clock_gettime.
// The narrower of two reads (more when both were preempted).
void take_anchor(uint64_t& tsc, uint64_t& ns) {
  uint64_t best_spread = UINT64_MAX;
  for (int attempt = 0; attempt < kAnchorAttempts; ++attempt) {
    const uint64_t before = read_tsc();
    const uint64_t read = monotonic_ns();
    const uint64_t after = read_tsc();
    if (after - before < best_spread) {
      best_spread = after - before;
      tsc = before + best_spread / 2;
      ns = read;
    }
    if (attempt >= 1 && best_spread <= kMaxAnchorSpreadTicks) return;
  }
}

void store_max(std::atomic<uint64_t>& slot, uint64_t value) {
  uint64_t seen = slot.load(std::memory_order_relaxed);
  while (value > seen && !slot.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

uint64_t kept_monotonic(uint64_t ns) {
  if (ns < t_last_ns) ns = t_last_ns;
  t_last_ns = ns;
  return ns;
}

// A new anchor for this thread; refines the process's rate with it.
__attribute__((noinline)) uint64_t reanchor() {
  const uint64_t rate = g_rate.load(std::memory_order_relaxed);
  if (rate == 0) {
    const uint64_t now = monotonic_ns();
    if (now - g_base_ns < kFirstRateNs) return kept_monotonic(now);
  }
  uint64_t tsc = 0, ns = 0;
  take_anchor(tsc, ns);
  const uint64_t reanchor_ticks = g_reanchor_ticks.load(std::memory_order_relaxed);
  const uint64_t since_anchor = tsc - t_anchor_tsc;
  // How far the old anchor, extended to here, is from CLOCK_MONOTONIC: the
  // error of this thread's latest stamps (for one just past the anchor's age).
  if (rate != 0 && t_anchor_tsc != 0 && tsc >= t_anchor_tsc && since_anchor < 2 * reanchor_ticks) {
    const uint64_t extended = t_anchor_ns + static_cast<uint64_t>((unsigned __int128)since_anchor * rate >> kRateShift);
    store_max(g_largest_step_ns, extended > ns ? extended - ns : ns - extended);
    g_anchors.fetch_add(1, std::memory_order_relaxed);
  }
  const uint64_t baseline = ns - g_base_ns;
  if (baseline >= kFirstRateNs && tsc > g_base_tsc) {
    const uint64_t new_rate = static_cast<uint64_t>(((unsigned __int128)baseline << kRateShift) / (tsc - g_base_tsc));
    if (new_rate != 0) {
      const uint64_t keep_ns = baseline / kAnchorShare < kReanchorNs ? baseline / kAnchorShare : kReanchorNs;
      g_rate.store(new_rate, std::memory_order_relaxed);
      g_reanchor_ticks.store((keep_ns << kRateShift) / new_rate, std::memory_order_release);
    }
  }
  t_anchor_tsc = tsc;
  t_anchor_ns = ns;
  return kept_monotonic(ns);
}

}  // namespace

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

void init() {
  g_use_tsc = invariant_tsc();
  if (g_use_tsc) take_anchor(g_base_tsc, g_base_ns);
}

uint64_t now_ns() {
  if (!g_use_tsc) return monotonic_ns();
  const uint64_t ticks = read_tsc() - t_anchor_tsc;
  // Unsigned: a TSC behind the anchor (another core's, slightly off) wraps
  // to a huge count and takes a new anchor too.
  // Acquire: a count of ticks seen is a rate seen.
  if (ticks >= g_reanchor_ticks.load(std::memory_order_acquire)) return reanchor();
  return kept_monotonic(t_anchor_ns + (ticks * g_rate.load(std::memory_order_relaxed) >> kRateShift));
}

Report report() {
  const uint64_t rate = g_rate.load(std::memory_order_relaxed);
  return Report{g_use_tsc, g_anchors.load(std::memory_order_relaxed),
                g_largest_step_ns.load(std::memory_order_relaxed),
                rate != 0 ? (uint64_t{1'000'000} << kRateShift) / rate : 0};
}

}  // namespace lumen::mpi::tsc_clock
