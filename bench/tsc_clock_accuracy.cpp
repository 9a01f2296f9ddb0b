// How far the runtime's TSC clock (core/collector/time/tsc_clock.h) strays from
// CLOCK_MONOTONIC: for SECONDS, stamps of the clock taken between two
// clock_gettime readings, as a traced call would take them; prints the
// largest distance of a stamp outside [before, after] and the clocks' cost.
//   tsc_clock_accuracy [SECONDS]   (default 2)
#include <cstdio>
#include <cstdlib>

#include "time/clock.h"
#include "time/tsc_clock.h"

using lumen::collector::monotonic_ns;
using lumen::collector::tsc_now_ns;

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 2;
  lumen::collector::tsc_clock_init();
  const uint64_t start = monotonic_ns();
  const uint64_t end = start + static_cast<uint64_t>(seconds * 1e9);
  uint64_t samples = 0, early = 0, late = 0, previous = 0, backwards = 0;
  for (uint64_t before = start; before < end;) {
    const uint64_t stamp = tsc_now_ns();
    const uint64_t after = monotonic_ns();
    if (before > stamp && before - stamp > early) early = before - stamp;
    if (stamp > after && stamp - after > late) late = stamp - after;
    backwards += stamp < previous;
    previous = stamp;
    before = monotonic_ns();
    ++samples;
  }
  const uint64_t loop_begin = monotonic_ns();
  uint64_t sink = 0;
  for (int i = 0; i < 1'000'000; ++i) sink += tsc_now_ns();
  const uint64_t tsc_cost = monotonic_ns() - loop_begin;
  const uint64_t gettime_begin = monotonic_ns();
  for (int i = 0; i < 1'000'000; ++i) sink += monotonic_ns();
  const uint64_t gettime_cost = monotonic_ns() - gettime_begin;
  const auto report = lumen::collector::tsc_clock_report();
  std::printf("clock %s, %llu ticks/ms, %llu stamps over %.1f s: at most %llu ns before CLOCK_MONOTONIC, %llu ns after; "
              "%llu went back; largest step from CLOCK_MONOTONIC at a redraw %llu ns over %llu lines; "
              "a stamp %.1f ns, clock_gettime %.1f ns (%llu)\n",
              report.tsc ? "TSC" : "clock_gettime", static_cast<unsigned long long>(report.ticks_per_ms),
              static_cast<unsigned long long>(samples), seconds, static_cast<unsigned long long>(early),
              static_cast<unsigned long long>(late), static_cast<unsigned long long>(backwards),
              static_cast<unsigned long long>(report.largest_step_ns),
              static_cast<unsigned long long>(report.lines), tsc_cost / 1e6, gettime_cost / 1e6,
              static_cast<unsigned long long>(sink & 1));
  return 0;
}
