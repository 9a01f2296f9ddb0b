/* An OpenMP program (two threads) that ends the process from inside a
 * parallel region, for the OpenMP plugin's tests of waits its trace never
 * sees end. Run with OMP_WAIT_POLICY=active, so that the waiting thread
 * spins and its wait is CPU time a clock profile samples.
 *
 * Thread 0 takes a lock, lets thread 1 start waiting for it, and works
 * holding it (held_work, 0.05 s at a time) until thread 1's CPU time since
 * it called omp_set_lock reaches 0.4 s (a spinning thread on a loaded
 * machine yields its CPU; at most 10 s of wall time): that is thread 1's
 * lock wait, which never ends, so no OpenMP callback reports its end. Thread 0 writes both times to the
 * JSON file named by LUMEN_TEST_TRUTH and calls exit(0) inside the region. */
#define _GNU_SOURCE
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "cpu_burn.h"

static omp_lock_t lock;
static pthread_t waiter;
static double wait_begin_cpu;
static int waiting;

__attribute__((noinline)) void held_work(double seconds) { burn_cpu(seconds); }

static void write_truth(double held, double lock_wait) {
  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return;
  FILE* out = fopen(path, "w");
  if (out == NULL) exit(1);
  fprintf(out, "{\"held_work\": %.9f, \"lock_wait\": %.9f}\n", held, lock_wait);
  if (fclose(out) != 0) exit(1);
}

__attribute__((noinline)) static void exiting_region(void) {
#pragma omp parallel num_threads(2)
  {
    if (omp_get_thread_num() == 0) {
      omp_set_lock(&lock);
#pragma omp barrier
      while (!__atomic_load_n(&waiting, __ATOMIC_ACQUIRE)) {
      }
      clockid_t waiter_clock;
      if (pthread_getcpuclockid(waiter, &waiter_clock) != 0) exit(1);
      const double begin = clock_seconds(CLOCK_THREAD_CPUTIME_ID), wall_begin = clock_seconds(CLOCK_MONOTONIC);
      do held_work(0.05);
      while (clock_seconds(waiter_clock) - wait_begin_cpu < 0.4 && clock_seconds(CLOCK_MONOTONIC) - wall_begin < 10);
      const double held = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - begin;
      write_truth(held, clock_seconds(waiter_clock) - wait_begin_cpu);
      exit(0);
    } else {
#pragma omp barrier
      waiter = pthread_self();
      wait_begin_cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
      __atomic_store_n(&waiting, 1, __ATOMIC_RELEASE);
      omp_set_lock(&lock);  /* never acquired: thread 0 ends the process */
    }
  }
}

int main(void) {
  omp_init_lock(&lock);
  exiting_region();
  return 1; /* not reached */
}
