/* Benchmark target for sync tracing overhead (run by sync_overhead.sh).
 *
 *   sync_bench_target uncontended MILLIONS
 *       one thread, MILLIONS x 1e6 pthread_mutex_lock/unlock pairs on one
 *       mutex; prints the time per pair.
 *   sync_bench_target contended THREADS MILLIONS [WORK]
 *       THREADS threads share one mutex, each doing MILLIONS x 1e6 / THREADS
 *       iterations of: WORK steps of private arithmetic, then lock, update a
 *       shared counter, unlock. Prints the elapsed time.
 *
 * Times are CLOCK_MONOTONIC around the loops, so start-up is not in them. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long g_counter;
static long g_iterations;
static int g_work;

__attribute__((noinline)) static void uncontended_pairs(long pairs) {
  for (long i = 0; i < pairs; ++i) {
    pthread_mutex_lock(&g_lock);
    g_counter++;
    pthread_mutex_unlock(&g_lock);
  }
}

__attribute__((noinline)) static void* contended_worker(void* arg) {
  (void)arg;
  volatile double x = 1.0;
  for (long i = 0; i < g_iterations; ++i) {
    for (int w = 0; w < g_work; ++w) x = x * 1.0000001 + 1e-9;
    pthread_mutex_lock(&g_lock);
    g_counter++;
    pthread_mutex_unlock(&g_lock);
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc >= 3 && strcmp(argv[1], "uncontended") == 0) {
    const long pairs = (long)(atof(argv[2]) * 1e6);
    const double t0 = now();
    uncontended_pairs(pairs);
    const double elapsed = now() - t0;
    printf("uncontended pairs=%ld seconds=%.6f ns_per_pair=%.2f\n", pairs, elapsed, elapsed * 1e9 / (double)pairs);
    return 0;
  }
  if (argc >= 4 && strcmp(argv[1], "contended") == 0) {
    const int threads = atoi(argv[2]);
    g_iterations = (long)(atof(argv[3]) * 1e6) / threads;
    g_work = argc >= 5 ? atoi(argv[4]) : 50;
    pthread_t t[64];
    if (threads < 1 || threads > 64) return 2;
    const double t0 = now();
    for (int i = 0; i < threads; ++i) pthread_create(&t[i], NULL, contended_worker, NULL);
    for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
    const double elapsed = now() - t0;
    printf("contended threads=%d iterations=%ld seconds=%.6f counter=%lu\n", threads, g_iterations * threads, elapsed,
           g_counter);
    return 0;
  }
  fprintf(stderr, "usage: sync_bench_target uncontended MILLIONS | contended THREADS MILLIONS [WORK]\n");
  return 2;
}
