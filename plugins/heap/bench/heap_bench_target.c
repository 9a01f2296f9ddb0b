/* Allocation-heavy target for heap tracing overhead (run by heap_overhead.sh).
 *
 *   heap_bench_target THREADS MILLIONS
 *       THREADS threads make MILLIONS x 1e6 allocations in all, each of a
 *       small varying size (16 to 271 bytes), keeping the last 256 blocks of
 *       the thread live and freeing the one they replace (so about as many
 *       frees as allocations, and every block but 256 per thread freed).
 *       Prints the time of the threads' loops (CLOCK_MONOTONIC around them,
 *       start-up and exit excluded) and the allocations and frees made.
 *
 * The work between calls is a few instructions, so the run time is mostly
 * the allocator's, and a tracer's cost per call shows fully. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define KEPT 256

static long per_thread;
static pthread_barrier_t start_line;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void* make_block(unsigned long i) {
  char* p = malloc(16 + (i * 7919u) % 256u);
  if (p != NULL) p[0] = (char)i;
  return p;
}

__attribute__((noinline)) static void drop_block(void* p) { free(p); }

__attribute__((noinline)) static long churn(long count) {
  void* kept[KEPT] = {0};
  long frees = 0;
  for (long i = 0; i < count; ++i) {
    const unsigned slot = (unsigned)i % KEPT;
    if (kept[slot] != NULL) {
      drop_block(kept[slot]);
      ++frees;
    }
    kept[slot] = make_block((unsigned long)i);
  }
  for (unsigned s = 0; s < KEPT; ++s)
    if (kept[s] != NULL) {
      drop_block(kept[s]);
      ++frees;
    }
  return frees;
}

static void* worker(void* argument) {
  pthread_barrier_wait(&start_line);
  *(long*)argument = churn(per_thread);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: heap_bench_target THREADS MILLIONS\n");
    return 2;
  }
  const int threads = atoi(argv[1]);
  const double millions = atof(argv[2]);
  if (threads < 1 || threads > 256 || millions <= 0) return 2;
  per_thread = (long)(millions * 1e6 / threads);
  pthread_t ids[256];
  long frees[256];
  pthread_barrier_init(&start_line, NULL, (unsigned)threads + 1);
  for (int t = 0; t < threads; ++t) pthread_create(&ids[t], NULL, worker, &frees[t]);
  pthread_barrier_wait(&start_line);
  const double start = now();
  long total_frees = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(ids[t], NULL);
    total_frees += frees[t];
  }
  const double seconds = now() - start;
  printf("threads=%d allocations=%ld frees=%ld seconds=%.6f\n", threads, per_thread * threads, total_frees, seconds);
  return 0;
}
