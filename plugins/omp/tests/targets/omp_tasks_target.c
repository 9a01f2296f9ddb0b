/* Explicit tasks with known work, for the OpenMP plugin's tests: thread 0
 * of a two-thread region creates TASKS tasks, each burning TASK_CPU seconds
 * of its thread's CPU, and waits for them at a taskwait (running some);
 * the other thread runs the rest at the region's end barrier. Each task
 * measures its own CPU and wall time, and the process its CPU time over
 * the region's function (with OMP_WAIT_POLICY=passive, waiting threads
 * sleep: the tasks' work and little else); the count and the totals go to
 * the JSON file named by LUMEN_TEST_TRUTH. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cpu_burn.h"

#define TASKS 12
#define TASK_CPU 0.03

__attribute__((noinline)) void task_work(double seconds) { burn_cpu(seconds); }

static double task_cpu, task_wall;
static int tasks_run;

__attribute__((noinline)) static void tasks_region(void) {
#pragma omp parallel num_threads(2)
  {
#pragma omp master
    {
      for (int i = 0; i < TASKS; ++i) {
        const double seconds = TASK_CPU;
#pragma omp task firstprivate(seconds)
        {
          const double wall = clock_seconds(CLOCK_MONOTONIC), cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
          task_work(seconds);
          const double used = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - cpu;
          const double took = clock_seconds(CLOCK_MONOTONIC) - wall;
#pragma omp atomic
          task_cpu += used;
#pragma omp atomic
          task_wall += took;
#pragma omp atomic
          tasks_run += 1;
        }
      }
#pragma omp taskwait
    }
  }
}

int main(void) {
  const double cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
  tasks_region();
  const double region_cpu = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return 0;
  FILE* out = fopen(path, "w");
  if (out == NULL) return 1;
  fprintf(out, "{\"tasks\": %d, \"task_cpu\": %.9f, \"task_wall\": %.9f, \"region_cpu\": %.9f}\n", tasks_run,
          task_cpu, task_wall, region_cpu);
  return fclose(out) == 0 ? 0 : 1;
}
