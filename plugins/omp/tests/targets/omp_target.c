/* An OpenMP program (two threads) that measures what it does, for the
 * OpenMP plugin's tests. Run with OMP_WAIT_POLICY=active, so that waiting
 * threads spin and their waits are CPU time a clock profile samples.
 *
 *   1. an imbalanced region: thread 0 works 0.1 s, thread 1 0.4 s; thread 0
 *      (the encountering thread) then waits at the region's end;
 *   2. serial work on the main thread (the worker idles meanwhile);
 *   3. an explicit barrier: thread 0 works 0.3 s, thread 1 0.1 s, then both
 *      meet at `#pragma omp barrier`;
 *   4. a lock: each thread takes it 5 times and holds it for 20 ms of work;
 *   5. a critical section, the same way.
 *
 * Every work function's CPU time, every wait's CPU time (CLOCK_THREAD_CPUTIME_ID
 * around the wait), the encountering thread's wait at each region's end,
 * and the worker's CPU time outside the regions' bodies (read through its
 * CPU clock at the end) go to the JSON file named by LUMEN_TEST_TRUTH. */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define THREADS 2
#define ROUNDS 5

static double clock_seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static double cpu_now(void) { return clock_seconds(CLOCK_THREAD_CPUTIME_ID); }
static double wall_now(void) { return clock_seconds(CLOCK_MONOTONIC); }

static volatile double sink;

/* Burns the calling thread's CPU until it has used `seconds` more. */
static void burn(double seconds) {
  const double until = cpu_now() + seconds;
  double x = 1.0;
  while (cpu_now() < until)
    for (int i = 0; i < 2000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

/* The work functions, each timed by its caller. */
__attribute__((noinline)) void imbalanced_work(double seconds) { burn(seconds); }
__attribute__((noinline)) void serial_work(double seconds) { burn(seconds); }
__attribute__((noinline)) void barrier_work(double seconds) { burn(seconds); }
__attribute__((noinline)) void locked_work(double seconds) { burn(seconds); }
__attribute__((noinline)) void critical_work(double seconds) { burn(seconds); }

static double work_cpu[5];  /* imbalanced, serial, barrier, locked, critical */
static double explicit_barrier_wait, lock_wait, critical_wait, region_end_wait;
static double inside_bodies[THREADS]; /* each thread's CPU time inside region bodies */
static double task_wall[THREADS];     /* region 1: each task's wall time */
static pthread_t worker;

#define BODY_BEGIN(t) const double body_begin_cpu = cpu_now(); if ((t) != 0) worker = pthread_self();

static void timed_work(void (*work)(double), int slot, double seconds) {
  const double begin = cpu_now();
  work(seconds);
  const double used = cpu_now() - begin;
#pragma omp atomic
  work_cpu[slot] += used;
}

/* The encountering thread's CPU from the end of its body to the region's
 * return: its wait at the region's end. */
static double master_body_end;
static void after_region(void) { region_end_wait += cpu_now() - master_body_end; }

/* An explicit barrier, its wait timed. */
static void measured_barrier(void) {
  const double before = cpu_now();
#pragma omp barrier
  const double waited = cpu_now() - before;
#pragma omp atomic
  explicit_barrier_wait += waited;
}

/* The end of a region's body on thread t that began at `body_begin_cpu`. */
static void end_body(int t, double body_begin_cpu) {
  const double end = cpu_now();
#pragma omp atomic
  inside_bodies[t] += end - body_begin_cpu;
  if (t == 0) master_body_end = end;
}

__attribute__((noinline)) static void imbalanced_region(void) {
#pragma omp parallel num_threads(THREADS)
  {
    const int t = omp_get_thread_num();
    const double wall_begin = wall_now();
    BODY_BEGIN(t)
    timed_work(imbalanced_work, 0, t == 0 ? 0.1 : 0.4);
    end_body(t, body_begin_cpu);
    task_wall[t] = wall_now() - wall_begin;
  }
  after_region();
}

__attribute__((noinline)) static void barrier_region(void) {
#pragma omp parallel num_threads(THREADS)
  {
    const int t = omp_get_thread_num();
    BODY_BEGIN(t)
    timed_work(barrier_work, 2, t == 0 ? 0.3 : 0.1);
    measured_barrier();
    end_body(t, body_begin_cpu);
  }
  after_region();
}

static omp_lock_t lock;

__attribute__((noinline)) static void lock_region(void) {
#pragma omp parallel num_threads(THREADS)
  {
    const int t = omp_get_thread_num();
    BODY_BEGIN(t)
    for (int round = 0; round < ROUNDS; ++round) {
      const double before = cpu_now();
      omp_set_lock(&lock);
      const double waited = cpu_now() - before;
#pragma omp atomic
      lock_wait += waited;
      timed_work(locked_work, 3, 0.02);
      omp_unset_lock(&lock);
    }
    measured_barrier();
    end_body(t, body_begin_cpu);
  }
  after_region();
}

__attribute__((noinline)) static void critical_region(void) {
#pragma omp parallel num_threads(THREADS)
  {
    const int t = omp_get_thread_num();
    BODY_BEGIN(t)
    for (int round = 0; round < ROUNDS; ++round) {
      const double before = cpu_now();
#pragma omp critical
      {
        const double waited = cpu_now() - before;
        critical_wait += waited;
        timed_work(critical_work, 4, 0.02);
      }
    }
    measured_barrier();
    end_body(t, body_begin_cpu);
  }
  after_region();
}

int main(void) {
  omp_init_lock(&lock);
  imbalanced_region();
  timed_work(serial_work, 1, 0.1);
  barrier_region();
  lock_region();
  critical_region();
  clockid_t worker_clock;
  double worker_outside = 0;
  if (pthread_getcpuclockid(worker, &worker_clock) == 0)
    worker_outside = clock_seconds(worker_clock) - inside_bodies[1];
  omp_destroy_lock(&lock);

  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return 0;
  FILE* out = fopen(path, "w");
  if (out == NULL) return 1;
  const double mean_task = (task_wall[0] + task_wall[1]) / 2;
  const double longest = task_wall[0] > task_wall[1] ? task_wall[0] : task_wall[1];
  double work = 0;
  for (int i = 0; i < 5; ++i) work += work_cpu[i];
  fprintf(out,
          "{\"imbalanced_work\": %.9f, \"serial_work\": %.9f, \"barrier_work\": %.9f, \"locked_work\": %.9f,\n"
          " \"critical_work\": %.9f, \"work\": %.9f,\n"
          " \"explicit_barrier_wait\": %.9f, \"lock_wait\": %.9f, \"critical_wait\": %.9f,\n"
          " \"region_end_wait\": %.9f, \"worker_outside_regions\": %.9f,\n"
          " \"wait\": %.9f, \"imbalance\": %.9f, \"threads\": %d}\n",
          work_cpu[0], work_cpu[1], work_cpu[2], work_cpu[3], work_cpu[4], work, explicit_barrier_wait, lock_wait,
          critical_wait, region_end_wait, worker_outside,
          explicit_barrier_wait + lock_wait + critical_wait + region_end_wait + worker_outside, longest - mean_task,
          THREADS);
  return fclose(out) == 0 ? 0 : 1;
}
