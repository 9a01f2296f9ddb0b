/* What the OpenMP test targets share: clocks in seconds, and CPU burnt on
 * the calling thread, inlined into the named function that calls it (the
 * function the tests look for). */
#pragma once

#include <time.h>

static inline double clock_seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile double burn_sink;

/* Burns `seconds` of the calling thread's CPU time. */
__attribute__((always_inline)) static inline void burn_cpu(double seconds) {
  const double until = clock_seconds(CLOCK_THREAD_CPUTIME_ID) + seconds;
  double x = 1.0;
  while (clock_seconds(CLOCK_THREAD_CPUTIME_ID) < until)
    for (int i = 0; i < 2000; ++i) x = x * 1.0000001 + 1e-9;
  burn_sink = x;
}
