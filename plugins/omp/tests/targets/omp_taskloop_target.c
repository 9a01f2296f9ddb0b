/* Taskloops with known work, for the OpenMP plugin's tests: thread 0 of a
 * two-thread region runs two taskloops, one over a long index
 * (GOMP_taskloop) in long_loop and one over an unsigned long long index
 * (GOMP_taskloop_ull) in ull_loop, each of CHUNKS iterations in CHUNKS
 * tasks (num_tasks), each iteration burning CHUNK_CPU seconds of its
 * thread's CPU; both threads run the tasks. Each iteration measures its
 * own CPU and wall time; per loop, the counts and totals go to the JSON
 * file named by LUMEN_TEST_TRUTH. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_burn.h"

#define CHUNKS 8
#define CHUNK_CPU 0.03

__attribute__((noinline)) void chunk_work(double seconds) { burn_cpu(seconds); }

struct Totals {
  int tasks;
  double cpu, wall;
};
static struct Totals long_totals, ull_totals;

static void timed_chunk(struct Totals* totals) {
  const double wall = clock_seconds(CLOCK_MONOTONIC), cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
  chunk_work(CHUNK_CPU);
  const double used = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - cpu;
  const double took = clock_seconds(CLOCK_MONOTONIC) - wall;
#pragma omp atomic
  totals->cpu += used;
#pragma omp atomic
  totals->wall += took;
#pragma omp atomic
  totals->tasks += 1;
}

__attribute__((noinline)) void long_loop(void) {
#pragma omp taskloop num_tasks(CHUNKS)
  for (long i = 0; i < CHUNKS; ++i) timed_chunk(&long_totals);
}

/* Iterations beyond a long's range: GCC calls GOMP_taskloop_ull. */
__attribute__((noinline)) void ull_loop(void) {
  const unsigned long long first = 1ULL << 63;
#pragma omp taskloop num_tasks(CHUNKS)
  for (unsigned long long i = first; i < first + CHUNKS; ++i) timed_chunk(&ull_totals);
}

int main(void) {
#pragma omp parallel num_threads(2)
#pragma omp master
  {
    long_loop();
    ull_loop();
  }
  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return 0;
  FILE* out = fopen(path, "w");
  if (out == NULL) return 1;
  fprintf(out,
          "{\"long_loop\": {\"tasks\": %d, \"cpu\": %.9f, \"wall\": %.9f}, "
          "\"ull_loop\": {\"tasks\": %d, \"cpu\": %.9f, \"wall\": %.9f}}\n",
          long_totals.tasks, long_totals.cpu, long_totals.wall, ull_totals.tasks, ull_totals.cpu, ull_totals.wall);
  return fclose(out) == 0 ? 0 : 1;
}
