/* Two parallel regions in one function, run round after round by a team
 * of THREADS (argv[1]; more than the machine's CPUs oversubscribes it),
 * with serial work on the encountering thread between rounds, for the
 * OpenMP plugin's tests of thread time, waits and regions:
 *
 *   region A (imbalanced): thread t burns (t + 1) * A_CPU in alpha_work;
 *   region B (balanced): every thread burns B_CPU in beta_work;
 *   then serial_work burns SERIAL_CPU (the workers idle meanwhile).
 *
 * Each thread measures its own: the wall time, CPU time and run delay
 * (schedstat: runnable, waiting for a CPU) of every work function; its
 * body's begin and end (omp_get_wtime), from which, with the region's end
 * the encountering thread reads as the construct returns, come its wait at
 * the region's end and a worker's idle time from there to its next body;
 * and its run delay inside the bodies; the runtime's own part (the
 * encountering thread's time from each construct to its body, the
 * workers' from the first construct to their first body, as the runtime
 * makes them). Each region's imbalance is the sum over its instances of
 * the longest body less the mean body (wall). The sums, and the lines of
 * the two constructs, go to the JSON file named by LUMEN_TEST_TRUTH. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../../tests/targets/run_delay.h"
#include "cpu_burn.h"

#define MAX_THREADS 16
/* Each stretch of work is many clock intervals long: what the sampling
 * moves across a function's end (a part of one interval each) stays small
 * against the work's own figures. */
#define A_CPU 0.060
#define B_CPU 0.120
#define SERIAL_CPU 0.150

/* What a thread measured of one kind of work. */
struct Measured {
  double wall, cpu, delay;
};

static int threads = 4;
static int rounds = 4;

static struct Measured alpha[MAX_THREADS], beta[MAX_THREADS], serial;
static double body_begin[MAX_THREADS], body_end[MAX_THREADS];
static double delay_in_bodies[MAX_THREADS];
static double region_end_wait[2];  /* per region: over threads and instances */
static double imbalance[2];
static double idle;                /* workers, from a region's end to their next body */
static double last_region_end;     /* 0 before the first region */
static double region_start;        /* the encountering thread, before each construct */
static double fork_time;           /* from there to its body's begin: the runtime starting the team */
static double startup;             /* the workers, from the first construct to their first body */
static int line_a, line_b;

/* Runs work(seconds) on the calling thread, adding what it measured into `into`. */
static void measured(void (*work)(double), double seconds, struct Measured* into) {
  const double wall = omp_get_wtime(), cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID), delay = run_delay_seconds();
  work(seconds);
  into->wall += omp_get_wtime() - wall;
  into->cpu += clock_seconds(CLOCK_THREAD_CPUTIME_ID) - cpu;
  into->delay += run_delay_seconds() - delay;
}

__attribute__((noinline)) void alpha_work(double seconds) { burn_cpu(seconds); }
__attribute__((noinline)) void beta_work(double seconds) { burn_cpu(seconds); }
__attribute__((noinline)) void serial_work(double seconds) { burn_cpu(seconds); }

static void begin_body(int t) {
  body_begin[t] = omp_get_wtime();
  delay_in_bodies[t] -= run_delay_seconds();
}

static void end_body(int t) {
  delay_in_bodies[t] += run_delay_seconds();
  body_end[t] = omp_get_wtime();
}

/* After region `r` returned on the encountering thread: its waits, its
 * workers' idle time before it, and its imbalance. */
static void after_region(int r, int team) {
  const double end = omp_get_wtime();
  double longest = 0, sum = 0;
  for (int t = 0; t < team; ++t) {
    region_end_wait[r] += end - body_end[t];
    /* Before the first region the workers did not exist yet: the runtime made them. */
    if (t != 0 && last_region_end > 0) idle += body_begin[t] - last_region_end;
    if (t != 0 && last_region_end == 0) startup += body_begin[t] - region_start;
    const double task = body_end[t] - body_begin[t];
    longest = task > longest ? task : longest;
    sum += task;
  }
  imbalance[r] += longest - sum / team;
  fork_time += body_begin[0] - region_start;
  last_region_end = end;
}

__attribute__((noinline)) static void two_regions(void) {
  int team = 0;
  region_start = omp_get_wtime();
  line_a = __LINE__ + 1;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    begin_body(t);
    if (t == 0) team = omp_get_num_threads();
    measured(alpha_work, (t + 1) * A_CPU, &alpha[t]);
    end_body(t);
  }
  after_region(0, team);
  region_start = omp_get_wtime();
  line_b = __LINE__ + 1;
#pragma omp parallel num_threads(threads)
  {
    const int t = omp_get_thread_num();
    begin_body(t);
    if (t == 0) team = omp_get_num_threads();
    measured(beta_work, B_CPU, &beta[t]);
    end_body(t);
  }
  after_region(1, team);
}

static struct Measured sum_of(const struct Measured* m) {
  struct Measured sum = {0, 0, 0};
  for (int t = 0; t < threads; ++t) sum.wall += m[t].wall, sum.cpu += m[t].cpu, sum.delay += m[t].delay;
  return sum;
}

static void write_measured(FILE* out, const char* name, struct Measured m) {
  fprintf(out, " \"%s\": {\"wall\": %.9f, \"cpu\": %.9f, \"delay\": %.9f},\n", name, m.wall, m.cpu, m.delay);
}

int main(int argc, char** argv) {
  if (argc > 1) threads = atoi(argv[1]);
  if (argc > 2) rounds = atoi(argv[2]);
  if (threads < 1 || threads > MAX_THREADS || rounds < 1) return 2;
  omp_set_dynamic(0);
  for (int round = 0; round < rounds; ++round) {
    two_regions();
    measured(serial_work, SERIAL_CPU, &serial);
  }
  /* The workers idle from the last region's end to the end. */
  const double end = omp_get_wtime();
  idle += (threads - 1) * (end - last_region_end);
  double in_bodies = 0;
  for (int t = 0; t < threads; ++t) in_bodies += delay_in_bodies[t];

  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return 0;
  FILE* out = fopen(path, "w");
  if (out == NULL) return 1;
  fprintf(out, "{\"threads\": %d, \"rounds\": %d, \"line_a\": %d, \"line_b\": %d,\n", threads, rounds, line_a, line_b);
  write_measured(out, "alpha_work", sum_of(alpha));
  write_measured(out, "beta_work", sum_of(beta));
  write_measured(out, "serial_work", serial);
  fprintf(out,
          " \"region_end_wait\": [%.9f, %.9f], \"imbalance\": [%.9f, %.9f], \"idle\": %.9f,\n"
          " \"delay_in_bodies\": %.9f, \"fork\": %.9f, \"startup\": %.9f}\n",
          region_end_wait[0], region_end_wait[1], imbalance[0], imbalance[1], idle, in_bodies, fork_time, startup);
  return fclose(out) == 0 ? 0 : 1;
}
