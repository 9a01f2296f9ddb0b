/* Explicit tasks with known work, for the OpenMP plugin's tests: thread 0
 * of a two-thread region creates TASKS tasks, each burning TASK_CPU seconds
 * of its thread's CPU, and waits for them at a taskwait (running some);
 * the other thread runs the rest at the region's end barrier. Each task
 * measures its own CPU and wall time; the count and the totals go to the
 * JSON file named by LUMEN_TEST_TRUTH. */
#define _GNU_SOURCE
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TASKS 12
#define TASK_CPU 0.03

static double clock_seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile double sink;

__attribute__((noinline)) void task_work(double seconds) {
  const double until = clock_seconds(CLOCK_THREAD_CPUTIME_ID) + seconds;
  double x = 1.0;
  while (clock_seconds(CLOCK_THREAD_CPUTIME_ID) < until)
    for (int i = 0; i < 2000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

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
  tasks_region();
  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return 0;
  FILE* out = fopen(path, "w");
  if (out == NULL) return 1;
  fprintf(out, "{\"tasks\": %d, \"task_cpu\": %.9f, \"task_wall\": %.9f}\n", tasks_run, task_cpu, task_wall);
  return fclose(out) == 0 ? 0 : 1;
}
