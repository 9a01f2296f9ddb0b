/* Threads allocating at the same moments, in lock-step, so that the true
 * peak of the bytes in use is known by construction: in each round every
 * thread frees its block, all wait at a barrier, every thread allocates a
 * new one, all wait again. The bytes the rounds hold rise to the last
 * round's blocks (each round's are 16 bytes a thread more than the one
 * before), while each thread's own largest block is in another round (the
 * round whose number it is, modulo the threads, adds kBonus to it): a
 * replay that took any thread's events ahead of another's across rounds
 * would see blocks of two rounds at once, and a higher peak.
 * Truth (heap_truth.h): "round_allocate" as counted, and "at_peak": the
 * last round's blocks, what the rounds hold at the peak.
 * Usage: heap_peak_target [threads [rounds]] */
#include "heap_truth.h"

#define MAX_THREADS 16
enum { kBonus = 300000 };

static int thread_count = 4;
static int round_count = 64;
static pthread_barrier_t barrier;

static size_t block_size(int thread, int round) {
  return 1024 * (size_t)(thread + 1) + 16 * (size_t)round + (round % thread_count == thread ? kBonus : 0);
}

static NOINLINE void* round_allocate(size_t size) {
  void* p = malloc(size);
  heap_truth_add("round_allocate", 1, (long long)size, 0, 0);
  return p;
}

static void* worker(void* argument) {
  const int thread = (int)(long)argument;
  void* block = NULL;
  for (int round = 0; round < round_count; ++round) {
    free(block);
    pthread_barrier_wait(&barrier);
    block = round_allocate(block_size(thread, round));
    pthread_barrier_wait(&barrier);
  }
  pthread_barrier_wait(&barrier); /* the peak: every thread's last block */
  free(block);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) thread_count = atoi(argv[1]);
  if (argc > 2) round_count = atoi(argv[2]);
  if (thread_count < 1 || thread_count > MAX_THREADS || round_count < 1) return 2;
  pthread_barrier_init(&barrier, NULL, (unsigned)thread_count);
  pthread_t threads[MAX_THREADS];
  for (int t = 0; t < thread_count; ++t) pthread_create(&threads[t], NULL, worker, (void*)(long)t);
  for (int t = 0; t < thread_count; ++t) pthread_join(threads[t], NULL);
  long long peak = 0;
  for (int t = 0; t < thread_count; ++t) peak += (long long)block_size(t, round_count - 1);
  heap_truth_add("at_peak", thread_count, peak, 0, 0);
  heap_truth_write(NULL);
  say("peak_target done: %d threads x %d rounds\n", thread_count, round_count);
  return 0;
}
