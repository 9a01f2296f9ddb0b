/* A deterministic, single-threaded, CPU-bound target for overhead runs
 * (tools/overhead/clock_overhead.sh): about 3 s of floating-point work on
 * this project's reference VM, in three leaf functions of known shares
 * (series_kernel, newton_kernel, recurrence_kernel: about 46 / 32 / 22 % as
 * perf measures them), on a call chain main -> run -> phase_* -> *_kernel.
 *
 * stdout: one checksum line (keeps the work observable).
 * stderr: "cpu_target: cpu_seconds=S wall_seconds=W", the process's own
 *         CLOCK_PROCESS_CPUTIME_ID and CLOCK_MONOTONIC at exit.
 * CPU_TARGET_SCALE (a positive number, default 1) scales the work.
 *
 *   gcc -O2 -g -o cpu_target cpu_target.c
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Work per slice at scale 1 (ten slices). */
#define NEWTON_STEPS 1.0e7
#define SERIES_TERMS 1.2e8
#define RECURRENCE_ROUNDS 1.0e7

static double seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Newton's square root, restarted: a chain of dependent divisions. */
__attribute__((noinline)) static double newton_kernel(long first, long steps) {
  double total = 0.0;
  for (long i = first; i < first + steps; ++i) {
    const double a = 2.0 + (double)(i & 1023);
    double x = a;
    for (int k = 0; k < 8; ++k) x = 0.5 * (x + a / x);
    total += x;
  }
  return total;
}

/* A slowly converging series: sum of 1 / (k^2 + 1), dependent adds. */
__attribute__((noinline)) static double series_kernel(long first, long terms) {
  double total = 0.0;
  for (long k = first + 1; k <= first + terms; ++k) {
    const double d = (double)k;
    total += 1.0 / (d * d + 1.0);
  }
  return total;
}

/* A damped linear recurrence over a small vector (multiply-add chains). */
__attribute__((noinline)) static double recurrence_kernel(long seed, long rounds) {
  double v[8] = {1, 2, 3, 4, 5, 6, 7, (double)seed};
  for (long r = 0; r < rounds; ++r)
    for (int i = 0; i < 8; ++i) v[i] = v[i] * 0.999999 + v[(i + 1) & 7] * 1e-6 + 1e-9;
  return v[0] + v[7];
}

/* Each slice works on its own range, so no slice's result can be reused. */
__attribute__((noinline)) static double phase_roots(int slice, double scale) {
  const long steps = (long)(NEWTON_STEPS * scale);
  return newton_kernel(slice * steps, steps);
}
__attribute__((noinline)) static double phase_series(int slice, double scale) {
  const long terms = (long)(SERIES_TERMS * scale);
  return series_kernel(slice * terms, terms);
}
__attribute__((noinline)) static double phase_recurrence(int slice, double scale) {
  return recurrence_kernel(slice, (long)(RECURRENCE_ROUNDS * scale));
}

__attribute__((noinline)) static double run(double scale) {
  double checksum = 0.0;
  /* Interleaved in slices, so that each phase spans the whole run. */
  for (int slice = 0; slice < 10; ++slice) {
    checksum += phase_roots(slice, scale);
    checksum += phase_series(slice, scale);
    checksum += phase_recurrence(slice, scale);
  }
  return checksum;
}

int main(void) {
  const double wall_start = seconds(CLOCK_MONOTONIC);
  double scale = 1.0;
  const char* text = getenv("CPU_TARGET_SCALE");
  if (text != NULL && atof(text) > 0) scale = atof(text);
  const double checksum = run(scale);
  printf("checksum %.17g\n", checksum);
  fflush(stdout);
  fprintf(stderr, "cpu_target: cpu_seconds=%.6f wall_seconds=%.6f\n", seconds(CLOCK_PROCESS_CPUTIME_ID),
          seconds(CLOCK_MONOTONIC) - wall_start);
  return 0;
}
