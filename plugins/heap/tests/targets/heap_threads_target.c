/* A pool of threads allocating concurrently. Each of 4 threads allocates
 * 10000 blocks of odd sizes (pool_allocate); after a barrier each frees the
 * blocks of its neighbour except every 100th (pool_release: frees on another
 * thread than the allocation's), then allocates and frees 10000 more
 * (pool_churn), which get back addresses its neighbour allocated and this
 * thread freed. Pairing those by address is only right in time order.
 * pthread_create's TLS vectors are counted too (heap_thread_vector.h).
 * Usage: heap_threads_target [threads] [blocks per thread] */
#define _GNU_SOURCE
#include "heap_thread_vector.h"

#define MAX_THREADS 16

static int thread_count = 4;
static int blocks_per_thread = 10000;
static void** blocks[MAX_THREADS];
static pthread_barrier_t barrier;

static size_t block_size(int thread, int k) { return 1 + 2 * (size_t)((thread * 7919 + k * 31) % 997); }

NOINLINE void pool_allocate(int thread) {
  long long bytes = 0, leaked_bytes = 0, leaks = 0;
  for (int k = 0; k < blocks_per_thread; ++k) {
    const size_t size = block_size(thread, k);
    blocks[thread][k] = malloc(size);
    touch(blocks[thread][k], size);
    bytes += (long long)size;
    if (k % 100 == 0) {
      leaks += 1;
      leaked_bytes += (long long)size;
    }
  }
  heap_truth_add("pool_allocate", blocks_per_thread, bytes, leaks, leaked_bytes);
}

NOINLINE void pool_release(int thread) {
  const int neighbour = (thread + 1) % thread_count;
  for (int k = 0; k < blocks_per_thread; ++k)
    if (k % 100 != 0) free(blocks[neighbour][k]);
}

NOINLINE void pool_churn(int thread) {
  long long bytes = 0;
  for (int k = 0; k < blocks_per_thread; ++k) {
    const size_t size = block_size((thread + 1) % thread_count, k);
    void* p = malloc(size);
    touch(p, size);
    free(p);
    bytes += (long long)size;
  }
  heap_truth_add("pool_churn", blocks_per_thread, bytes, 0, 0);
}

static void* worker(void* argument) {
  const int thread = (int)(long)argument;
  pool_allocate(thread);
  pthread_barrier_wait(&barrier);
  pool_release(thread);
  pool_churn(thread);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) thread_count = atoi(argv[1]);
  if (argc > 2) blocks_per_thread = atoi(argv[2]);
  if (thread_count < 1 || thread_count > MAX_THREADS || blocks_per_thread < 1) return 2;
  /* The bookkeeping arrays are mappings of their own, not counted blocks. */
  static void* storage[MAX_THREADS][100000];
  if (blocks_per_thread > 100000) return 2;
  for (int t = 0; t < thread_count; ++t) blocks[t] = storage[t];
  pthread_barrier_init(&barrier, NULL, (unsigned)thread_count);
  pthread_t threads[MAX_THREADS];
  for (int t = 0; t < thread_count; ++t) pthread_create(&threads[t], NULL, worker, (void*)(long)t);
  for (int t = 0; t < thread_count; ++t) pthread_join(threads[t], NULL);
  heap_truth_thread_vectors(thread_count);
  heap_truth_write(NULL);
  say("threads_target done: %d threads x %d blocks\n", thread_count, blocks_per_thread);
  return 0;
}
