// The runtime's TSC clock (tsc_clock.h).
#include "time/tsc_clock.h"

#include <atomic>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

#include "time/clock.h"

namespace lumen::collector {

namespace {

// Slopes and rates are nanoseconds a tick, scaled by 2^kRateShift.
constexpr int kRateShift = 32;
// An anchor whose TSC reads before and after clock_gettime lie further
// apart than this (the thread was preempted between them) is read again.
constexpr uint64_t kMaxAnchorSpreadTicks = 20'000;
constexpr int kAnchorAttempts = 4;
// A line lasts at most 1/kYoungShare of the time since the first anchor.
constexpr uint64_t kYoungShare = 64;

// A line of the curve. Atomics: a stamp may read a slot while a drawing
// writes it; the generation then tells it to read again.
struct Line {
  std::atomic<uint64_t> start_tsc{0};
  std::atomic<uint64_t> start_ns{0};
  std::atomic<uint64_t> slope{0};         // over its first period; 0: no line yet
  std::atomic<uint64_t> period_ticks{0};  // its period in ticks, at the rate
  std::atomic<uint64_t> rate{0};          // past its first period
};
struct LineValues {
  uint64_t start_tsc, start_ns, slope, period_ticks, rate;
};

// Read on every stamp, written once a period: a cache line of its own.
struct alignas(64) Curve {
  // Line (generation / 2) % 2 is published; odd: the other one is being drawn.
  std::atomic<uint64_t> generation{0};
  Line lines[2];
};
Curve g_curve;

std::atomic<bool> g_use_tsc{false};
std::atomic<uint64_t> g_first_tsc{0};
std::atomic<uint64_t> g_first_ns{0};
std::atomic<uint64_t> g_lines{0};
std::atomic<uint64_t> g_largest_step_ns{0};

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

// A (TSC, CLOCK_MONOTONIC) pair read together: the TSC halfway between its
// reads around clock_gettime, from the narrowest of a few tries.
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

uint64_t scaled(uint64_t ticks, uint64_t slope) {
  return static_cast<uint64_t>(static_cast<unsigned __int128>(ticks) * slope >> kRateShift);
}

uint64_t value_at(const LineValues& line, uint64_t tsc) {
  // A TSC read before the line's start (out of order, or just before
  // another thread published it) stands at the start.
  if (static_cast<int64_t>(tsc - line.start_tsc) <= 0) return line.start_ns;
  const uint64_t ticks = tsc - line.start_tsc;
  if (ticks < line.period_ticks) return line.start_ns + scaled(ticks, line.slope);
  return line.start_ns + scaled(line.period_ticks, line.slope) + scaled(ticks - line.period_ticks, line.rate);
}

// The published line, and the generation it was published at.
uint64_t read_line(LineValues& out) {
  for (;;) {
    const uint64_t generation = g_curve.generation.load(std::memory_order_acquire);
    const Line& line = g_curve.lines[(generation >> 1) & 1];
    out.start_tsc = line.start_tsc.load(std::memory_order_relaxed);
    out.start_ns = line.start_ns.load(std::memory_order_relaxed);
    out.slope = line.slope.load(std::memory_order_relaxed);
    out.period_ticks = line.period_ticks.load(std::memory_order_relaxed);
    out.rate = line.rate.load(std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_acquire);
    // The slot just read is written again only by the drawing after the
    // next one, which begins at the even generation plus 3.
    if (g_curve.generation.load(std::memory_order_relaxed) - (generation & ~uint64_t{1}) <= 2) return generation;
  }
}

void store_max(std::atomic<uint64_t>& slot, uint64_t value) {
  uint64_t seen = slot.load(std::memory_order_relaxed);
  while (value > seen && !slot.compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

// The line after `old` (published at `generation`), from an anchor taken
// now. Returns the stamp for now, or 0 when another thread is drawing.
__attribute__((noinline)) uint64_t draw(uint64_t generation, const LineValues& old) {
  uint64_t claimed = generation;
  if ((generation & 1) != 0 ||
      !g_curve.generation.compare_exchange_strong(claimed, generation + 1, std::memory_order_relaxed))
    return 0;
  // A stamp that sees any of the slot's new values sees the claim too.
  std::atomic_thread_fence(std::memory_order_release);
  uint64_t tsc = 0, ns = 0;
  take_anchor(tsc, ns);
  const uint64_t since_first_ticks = tsc - g_first_tsc.load(std::memory_order_relaxed);
  const uint64_t since_first_ns = ns - g_first_ns.load(std::memory_order_relaxed);
  const uint64_t rate =
      static_cast<int64_t>(since_first_ticks) > 0
          ? static_cast<uint64_t>((static_cast<unsigned __int128>(since_first_ns) << kRateShift) / since_first_ticks)
          : 0;
  if (rate == 0) {  // no rate to draw with: the published line stays
    g_curve.generation.store(generation, std::memory_order_release);
    return ns;
  }
  // Young, the rate is coarse (two anchors' error over a short time): the
  // lines are short too, so that the error they gather stays as small.
  const uint64_t period_ns = since_first_ns / kYoungShare < kTscPeriodNs ? since_first_ns / kYoungShare : kTscPeriodNs;
  const uint64_t period_ticks = static_cast<uint64_t>((static_cast<unsigned __int128>(period_ns) << kRateShift) / rate);
  LineValues next{tsc, ns, rate, period_ticks, rate};
  if (old.slope != 0) {
    const uint64_t curve = value_at(old, tsc);
    store_max(g_largest_step_ns, curve > ns ? curve - ns : ns - curve);
    g_lines.fetch_add(1, std::memory_order_relaxed);
    if (curve > ns) {  // ahead: go on from there, slower, to meet CLOCK_MONOTONIC a period on
      const uint64_t ahead = curve - ns;
      next.start_ns = curve;
      next.slope = ahead < period_ns / 2 ? static_cast<uint64_t>(
                                               (static_cast<unsigned __int128>(period_ns - ahead) << kRateShift) /
                                               period_ticks)
                                         : rate / 2;
    }
  }
  Line& line = g_curve.lines[((generation >> 1) + 1) & 1];
  line.start_tsc.store(next.start_tsc, std::memory_order_relaxed);
  line.start_ns.store(next.start_ns, std::memory_order_relaxed);
  line.slope.store(next.slope, std::memory_order_relaxed);
  line.period_ticks.store(next.period_ticks, std::memory_order_relaxed);
  line.rate.store(next.rate, std::memory_order_relaxed);
  g_curve.generation.store(generation + 2, std::memory_order_release);
  return next.start_ns;
}

}  // namespace

void tsc_clock_init() {
  if (g_use_tsc.load(std::memory_order_relaxed) || !invariant_tsc()) return;
  uint64_t tsc = 0, ns = 0;
  take_anchor(tsc, ns);
  g_first_tsc.store(tsc, std::memory_order_relaxed);
  g_first_ns.store(ns, std::memory_order_relaxed);
  g_use_tsc.store(true, std::memory_order_release);
}

uint64_t tsc_now_ns() {
  if (!g_use_tsc.load(std::memory_order_acquire)) return monotonic_ns();
  LineValues line;
  const uint64_t generation = read_line(line);
  if (line.slope == 0) {  // no line yet: clock_gettime, and the first line once the rate can be measured
    const uint64_t ns = monotonic_ns();
    if (ns - g_first_ns.load(std::memory_order_relaxed) >= kTscFirstRateNs) {
      if (const uint64_t drawn = draw(generation, line)) return drawn;
    }
    return ns;
  }
  const uint64_t tsc = read_tsc();
  const uint64_t ticks = tsc - line.start_tsc;
  if (ticks < line.period_ticks) return line.start_ns + (ticks * line.slope >> kRateShift);
  if (static_cast<int64_t>(ticks) > 0) {
    if (const uint64_t drawn = draw(generation, line)) return drawn;
  }
  return value_at(line, tsc);
}

void tsc_clock_after_fork() {
  const uint64_t generation = g_curve.generation.load(std::memory_order_relaxed);
  if ((generation & 1) != 0) g_curve.generation.store(generation - 1, std::memory_order_release);
}

TscClockReport tsc_clock_report() {
  LineValues line;
  read_line(line);
  return TscClockReport{g_use_tsc.load(std::memory_order_relaxed), g_lines.load(std::memory_order_relaxed),
                        g_largest_step_ns.load(std::memory_order_relaxed),
                        line.rate != 0 ? (uint64_t{1'000'000} << kRateShift) / line.rate : 0};
}

}  // namespace lumen::collector
