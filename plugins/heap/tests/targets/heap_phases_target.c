/* Bytes in use that rise and fall in steps, each held for 200 ms: ten
 * blocks of 100,000 bytes, then five of 400,000 more, then the ten freed,
 * then the five freed and one block of 12,345 kept to the end (a leak).
 * The program counts the bytes its blocks hold and, at each step, writes
 * that count as the truth's "level_N" bytes (heap_truth.h); "level_0" is
 * before the first block (0). A view of bytes in use over time must step
 * through these levels above what the process held before (its libraries'
 * blocks), in this order. */
#include <time.h>

#include "heap_truth.h"

static long long held;

static NOINLINE void* take(size_t size) {
  void* p = malloc(size);
  touch(p, size);
  held += (long long)size;
  heap_truth_add("take", 1, (long long)size, 0, 0);
  return p;
}

static NOINLINE void give(void* p, size_t size) {
  free(p);
  held -= (long long)size;
}

static void hold(const char* level) {
  heap_truth_add(level, 0, held, 0, 0);
  const struct timespec pause = {0, 200 * 1000 * 1000};
  nanosleep(&pause, NULL);
}

int main(void) {
  void* small[10];
  void* large[5];
  hold("level_0");
  for (int i = 0; i < 10; ++i) small[i] = take(100000);
  hold("level_1");
  for (int i = 0; i < 5; ++i) large[i] = take(400000);
  hold("level_2");
  for (int i = 0; i < 10; ++i) give(small[i], 100000);
  hold("level_3");
  for (int i = 0; i < 5; ++i) give(large[i], 400000);
  void* kept = take(12345);
  hold("level_4");
  (void)kept;
  say("phases_target done: %lld bytes kept\n", held);
  heap_truth_write(NULL);
  return 0;
}
