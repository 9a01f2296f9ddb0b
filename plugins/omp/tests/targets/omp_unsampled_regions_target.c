/* Many short parallel regions whose bodies allocate and take a lock on
 * every thread of the team, for the OpenMP plugin's test that what other
 * plugins record in a region no clock sample fell in is still shown under
 * the region's callers in user mode: main calls caller_of_regions, which
 * calls allocating_regions, whose regions' bodies call allocate_in_body
 * (one allocation of an odd size) and lock_in_body (one lock of a mutex of
 * the thread's own) on both threads. Each region lasts some microseconds,
 * so at 10 ms clock profiling nearly every region goes unsampled. The
 * number of calls of each and the smallest team seen go to the JSON file
 * named by LUMEN_TEST_TRUTH. */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REGIONS 2000
#define THREADS 2
#define BLOCK 4093

static volatile char sink;
static long allocations, locks;
static pthread_mutex_t mutexes[THREADS] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};
static int smallest_team = THREADS;

__attribute__((noinline)) void allocate_in_body(void) {
  char* block = malloc(BLOCK);
  if (block == NULL) return;
  memset(block, omp_get_thread_num(), BLOCK);
  sink = block[BLOCK - 1];
  free(block);
#pragma omp atomic
  allocations += 1;
}

__attribute__((noinline)) void lock_in_body(void) {
  pthread_mutex_t* mutex = &mutexes[omp_get_thread_num() % THREADS];
  pthread_mutex_lock(mutex);
  sink = 1;
  pthread_mutex_unlock(mutex);
#pragma omp atomic
  locks += 1;
}

__attribute__((noinline)) void allocating_regions(int regions) {
  for (int i = 0; i < regions; ++i) {
#pragma omp parallel num_threads(THREADS)
    {
      allocate_in_body();
      lock_in_body();
      if (omp_get_thread_num() == 0 && omp_get_num_threads() < smallest_team) smallest_team = omp_get_num_threads();
    }
  }
}

__attribute__((noinline)) void caller_of_regions(void) { allocating_regions(REGIONS); }

int main(void) {
  caller_of_regions();
  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return 0;
  FILE* out = fopen(path, "w");
  if (out == NULL) return 1;
  fprintf(out, "{\"regions\": %d, \"allocations\": %ld, \"locks\": %ld, \"smallest_team\": %d}\n", REGIONS,
          allocations, locks, smallest_team);
  return fclose(out) == 0 ? 0 : 1;
}
