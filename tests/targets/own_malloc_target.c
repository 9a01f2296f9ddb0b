/* A program with its own malloc (as one linked with a static allocator
 * has it: every library loaded later allocates from it), and a busy thread
 * that holds that allocator's lock while it works (20 ms turns of its own
 * code), letting go of it for a millisecond between turns. collect -P
 * holds such a thread while the collector loads; the load allocates, and
 * waits for the lock until collect lets the thread go again. Its profiling
 * signals come while it holds the lock.
 *
 * The main thread writes DIR/ready (its pid) once the busy thread has the
 * lock, then sleeps in 50 ms steps until DIR/stop appears; it exits 0 if
 * the busy thread went on turning meanwhile, 1 if not.
 *
 * usage: own_malloc_target DIR */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static atomic_int lock_word;
static char* arena;
static size_t arena_used;
static const size_t kArenaBytes = (size_t)1 << 30;

static void take_lock(void) {
  int expected = 0;
  while (!atomic_compare_exchange_weak(&lock_word, &expected, 1)) expected = 0;
}
static void give_lock(void) { atomic_store(&lock_word, 0); }

/* A bump allocator: each block is 16-aligned (or as asked), with its size
 * in the 16 bytes before it; free keeps nothing. */
static void* allocate(size_t alignment, size_t size) {
  if (alignment < 16) alignment = 16;
  take_lock();
  if (arena == NULL) {
    arena = mmap(NULL, kArenaBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (arena == MAP_FAILED) abort();
  }
  size_t at = (arena_used + 16 + alignment - 1) & ~(alignment - 1);
  if (at + size > kArenaBytes) {
    give_lock();
    return NULL;
  }
  arena_used = at + size;
  give_lock();
  *(size_t*)(arena + at - 16) = size;
  return arena + at;
}

void* malloc(size_t size) { return allocate(16, size); }
void free(void* block) { (void)block; }
void* calloc(size_t count, size_t size) {
  void* block = allocate(16, count * size);
  if (block != NULL) memset(block, 0, count * size);  /* the arena may be reused memory of nobody's */
  return block;
}
size_t malloc_usable_size(void* block) { return block == NULL ? 0 : *(size_t*)((char*)block - 16); }
void* realloc(void* block, size_t size) {
  void* moved = allocate(16, size);
  if (moved != NULL && block != NULL) {
    const size_t old = malloc_usable_size(block);
    memcpy(moved, block, old < size ? old : size);
  }
  return moved;
}
void* memalign(size_t alignment, size_t size) { return allocate(alignment, size); }
void* aligned_alloc(size_t alignment, size_t size) { return allocate(alignment, size); }
int posix_memalign(void** out, size_t alignment, size_t size) {
  *out = allocate(alignment, size);
  return *out == NULL ? ENOMEM : 0;
}
void* valloc(size_t size) { return allocate(4096, size); }
void* pvalloc(size_t size) { return allocate(4096, (size + 4095) & ~(size_t)4095); }

static atomic_long turns;
static atomic_int stop;

static double thread_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return now.tv_sec + now.tv_nsec / 1e9;
}

/* Its own code, nearly all of its time (the clock is read in the C
 * library). */
static volatile unsigned long spun;
static void spin(void) {
  for (int i = 0; i < 1000000; ++i) spun = spun + 1;
}

/* Each turn: 20 ms of CPU with the allocator's lock held, then 1 ms
 * without it. */
static void* busy(void* unused) {
  (void)unused;
  while (!atomic_load(&stop)) {
    take_lock();
    const double until = thread_seconds() + 0.02;
    do spin(); while (thread_seconds() < until);
    give_lock();
    atomic_fetch_add(&turns, 1);
    const struct timespec moment = {0, 1000 * 1000};  /* for a waiter to take the lock */
    nanosleep(&moment, NULL);
  }
  return NULL;
}

static int exists(const char* dir, const char* name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return access(path, F_OK) == 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: own_malloc_target DIR\n");
    return 2;
  }
  free(malloc(1));  /* the arena exists before the busy thread takes the lock */
  pthread_t thread;
  pthread_create(&thread, NULL, busy, NULL);
  while (atomic_load(&lock_word) == 0) {
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/ready", argv[1]);
  FILE* ready = fopen(path, "w");  /* its buffer comes from this allocator: the busy thread lets go each turn */
  fprintf(ready, "%d\n", (int)getpid());
  fclose(ready);
  const struct timespec step = {0, 50 * 1000 * 1000};
  long turns_at_ready = atomic_load(&turns);
  while (!exists(argv[1], "stop")) nanosleep(&step, NULL);
  const long turned = atomic_load(&turns) - turns_at_ready;
  atomic_store(&stop, 1);
  pthread_join(thread, NULL);
  printf("own_malloc_target: %ld turns\n", turned);
  return turned > 0 ? 0 : 1;
}
