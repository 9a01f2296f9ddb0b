/* An EPCC-style OpenMP overhead target: REGIONS parallel regions on THREADS
 * threads, each thread burning about WORK_US microseconds in each region,
 * then a task-heavy loop: one region of THREADS threads in which one
 * thread creates TASKS explicit tasks of about WORK_US microseconds each,
 * run by the whole team. Prints the time of each loop (CLOCK_MONOTONIC,
 * start-up excluded) as "seconds=S" and "task_seconds=S".
 *   omp_regions_bench [REGIONS] [THREADS] [WORK_US] [TASKS]  (100000 2 20 100000) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile double sink;

/* About `steps` dependent multiply-adds: the region's work. */
__attribute__((noinline)) static void region_work(long steps) {
  double x = 1.0;
  for (long i = 0; i < steps; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

int main(int argc, char** argv) {
  const long regions = argc > 1 ? atol(argv[1]) : 100000;
  const int threads = argc > 2 ? atoi(argv[2]) : 2;
  const double work_us = argc > 3 ? atof(argv[3]) : 20;
  const long tasks = argc > 4 ? atol(argv[4]) : 100000;
  /* Calibrate steps per microsecond on this thread. */
  const long probe = 20000000;
  double begin = now();
  region_work(probe);
  const long steps = (long)(work_us * (double)probe / ((now() - begin) * 1e6));
  begin = now();
  for (long r = 0; r < regions; ++r) {
#pragma omp parallel num_threads(threads)
    region_work(steps);
  }
  printf("regions=%ld threads=%d work_us=%.1f seconds=%.6f\n", regions, threads, work_us, now() - begin);
  begin = now();
#pragma omp parallel num_threads(threads)
#pragma omp single
  for (long t = 0; t < tasks; ++t) {
#pragma omp task
    region_work(steps);
  }
  printf("tasks=%ld threads=%d work_us=%.1f task_seconds=%.6f\n", tasks, threads, work_us, now() - begin);
  return 0;
}
