/* Parallel regions nested three levels deep, for the OpenMP plugin's
 * tests: level1 starts a region of two threads, each of which works
 * LEVEL_CPU seconds and calls level2, which starts a region of two
 * threads, each of which works and calls level3, whose region's two
 * threads each work (omp_set_max_active_levels(3): every level gets its
 * team). Each thread measures the CPU time of its own work at each level;
 * per level, the sums go to the JSON file named by LUMEN_TEST_TRUTH. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_burn.h"

#define LEVEL_CPU 0.04

static double level_cpu[4];
static int level_threads[4];

__attribute__((noinline)) void level_work(int level) {
  const double begin = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
  burn_cpu(LEVEL_CPU);
  const double used = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - begin;
#pragma omp atomic
  level_cpu[level] += used;
#pragma omp atomic
  level_threads[level] += 1;
}

__attribute__((noinline)) void level3(void) {
#pragma omp parallel num_threads(2)
  level_work(3);
}

__attribute__((noinline)) void level2(void) {
#pragma omp parallel num_threads(2)
  {
    level_work(2);
    level3();
  }
}

__attribute__((noinline)) void level1(void) {
#pragma omp parallel num_threads(2)
  {
    level_work(1);
    level2();
  }
}

int main(void) {
  omp_set_max_active_levels(3);
  level1();
  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return 0;
  FILE* out = fopen(path, "w");
  if (out == NULL) return 1;
  fprintf(out, "{\"level1\": %.9f, \"level2\": %.9f, \"level3\": %.9f, \"threads\": [%d, %d, %d]}\n", level_cpu[1],
          level_cpu[2], level_cpu[3], level_threads[1], level_threads[2], level_threads[3]);
  return fclose(out) == 0 ? 0 : 1;
}
