/* Every allocation function, each from its own function, with odd sizes that
 * make every figure unambiguous; a realloc chain; a known leak; calls that
 * fail (nothing allocated, errno or the error code as without a collector);
 * and a free of a block allocated before collection started (by a library's
 * constructor, which runs before the collector's). Prints what a collector
 * must not change: alignment, errno, malloc_usable_size, results. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <sys/mman.h>

#include "heap_early_library.h"
#include "heap_truth.h"

#define LEAKED_SLOTS 64
static void* leaked[LEAKED_SLOTS];
static int leaked_count;
static void keep(void* p) { leaked[leaked_count++] = p; }

static int aligned_to(const void* p, size_t alignment) { return ((uintptr_t)p % alignment) == 0; }

/* 5 blocks, 3 freed. */
NOINLINE void use_malloc(void) {
  void* blocks[5];
  long long bytes = 0, leaked_bytes = 0;
  for (int i = 0; i < 5; ++i) {
    const size_t size = 1001 + 2 * (size_t)i;
    blocks[i] = malloc(size);
    touch(blocks[i], size);
    bytes += (long long)size;
  }
  for (int i = 0; i < 3; ++i) free(blocks[i]);
  for (int i = 3; i < 5; ++i) {
    keep(blocks[i]);
    leaked_bytes += 1001 + 2 * i;
  }
  heap_truth_add("use_malloc", 5, bytes, 2, leaked_bytes);
}

/* 4 blocks of 13 x 77 bytes, all freed. */
NOINLINE void use_calloc(void) {
  void* blocks[4];
  int zero = 1;
  for (int i = 0; i < 4; ++i) {
    blocks[i] = calloc(13, 77);
    for (int b = 0; b < 13 * 77; ++b) zero = zero && ((char*)blocks[i])[b] == 0;
  }
  for (int i = 0; i < 4; ++i) free(blocks[i]);
  heap_truth_add("use_calloc", 4, 4 * 13 * 77, 0, 0);
  say("calloc zeroed %d\n", zero);
}

/* realloc(NULL) allocates; each growth or shrink is one allocation of the new
 * size that frees the old block; realloc(p, 0) frees; the last block leaks. */
NOINLINE void realloc_chain(void) {
  static const size_t sizes[] = {101, 3001, 57, 70001, 3, 12345};
  void* p = NULL;
  long long bytes = 0;
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    p = realloc(p, sizes[i]);
    touch(p, sizes[i]);
    bytes += (long long)sizes[i];
  }
  keep(p);
  void* q = realloc(NULL, 999);
  touch(q, 999);
  q = realloc(q, 0); /* glibc frees it and returns NULL */
  heap_truth_add("realloc_chain", 7, bytes + 999, 1, 12345);
  say("realloc to 0 returns %s\n", q == NULL ? "null" : "a block");
}

NOINLINE void use_memalign(void) {
  int aligned = 1;
  for (int i = 0; i < 3; ++i) {
    void* p = memalign(64, 3333);
    aligned = aligned && aligned_to(p, 64);
    touch(p, 3333);
    free(p);
  }
  heap_truth_add("use_memalign", 3, 3 * 3333, 0, 0);
  say("memalign aligned %d\n", aligned);
}

NOINLINE void use_posix_memalign(void) {
  int aligned = 1;
  void* kept = NULL;
  for (int i = 0; i < 3; ++i) {
    void* p = NULL;
    const int rc = posix_memalign(&p, 128, 5555);
    aligned = aligned && rc == 0 && aligned_to(p, 128);
    touch(p, 5555);
    if (i == 0) kept = p;
    else free(p);
  }
  keep(kept);
  void* untouched = &aligned;
  const int bad = posix_memalign(&untouched, 3, 100); /* not a power of two: EINVAL, nothing allocated */
  heap_truth_add("use_posix_memalign", 3, 3 * 5555, 1, 5555);
  say("posix_memalign aligned %d bad alignment %d result untouched %d\n", aligned, bad, untouched == &aligned);
}

NOINLINE void use_aligned_alloc(void) {
  int aligned = 1;
  for (int i = 0; i < 2; ++i) {
    void* p = aligned_alloc(256, 256 * 7);
    aligned = aligned && aligned_to(p, 256);
    touch(p, 256 * 7);
    free(p);
  }
  heap_truth_add("use_aligned_alloc", 2, 2 * 256 * 7, 0, 0);
  say("aligned_alloc aligned %d\n", aligned);
}

NOINLINE void use_valloc(void) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  void* a = valloc(7777);
  void* b = valloc(7777);
  touch(a, 7777);
  touch(b, 7777);
  say("valloc aligned %d\n", aligned_to(a, page) && aligned_to(b, page));
  free(a);
  keep(b);
  heap_truth_add("use_valloc", 2, 2 * 7777, 1, 7777);
}

/* Counted with the size asked for, although pvalloc rounds it to pages. */
NOINLINE void use_pvalloc(void) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  void* p = pvalloc(9999);
  touch(p, 9999);
  say("pvalloc aligned %d usable at least %d\n", aligned_to(p, page), malloc_usable_size(p) >= 3 * page);
  free(p);
  heap_truth_add("use_pvalloc", 1, 9999, 0, 0);
}

/* Mappings count as allocations; munmap of a whole mapping frees it. */
NOINLINE void use_mmap(void) {
  void* maps[3];
  for (int i = 0; i < 3; ++i) {
    maps[i] = mmap(NULL, 100001, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    touch(maps[i], 100001);
  }
  munmap(maps[0], 100001);
  munmap(maps[2], 100001);
  keep(maps[1]);
  errno = 0;
  void* refused = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, -1, 0); /* no fd, not anonymous: EBADF */
  say("mmap refused %d errno %s\n", refused == MAP_FAILED, errno == EBADF ? "EBADF" : "other");
  heap_truth_add("use_mmap", 3, 3 * 100001, 1, 100001);
}

NOINLINE void leak_some(void) {
  void* p = malloc(1999993);
  touch(p, 1999993);
  keep(p);
  heap_truth_add("leak_some", 1, 1999993, 1, 1999993);
}

/* Failing calls allocate nothing and leave errno as the library sets it. */
NOINLINE void fail_to_allocate(void) {
  errno = 0;
  void* huge = malloc(SIZE_MAX / 2);
  const int malloc_errno = errno;
  errno = 0;
  void* too_many = calloc(SIZE_MAX / 16, 32);
  const int calloc_errno = errno;
  void* block = malloc(64);
  touch(block, 64);
  errno = 0;
  void* grown = realloc(block, SIZE_MAX / 2);
  const int realloc_errno = errno;
  free(block); /* realloc failed: the block is still ours */
  errno = EDOM;
  free(NULL);
  const int free_kept_errno = errno == EDOM;
  say("malloc huge null %d ENOMEM %d; calloc overflow null %d ENOMEM %d; realloc huge null %d ENOMEM %d; free keeps errno %d\n",
      huge == NULL, malloc_errno == ENOMEM, too_many == NULL, calloc_errno == ENOMEM, grown == NULL,
      realloc_errno == ENOMEM, free_kept_errno);
  heap_truth_add("fail_to_allocate", 1, 64, 0, 0);
}

NOINLINE void check_usable_size(void) {
  void* p = malloc(200);
  touch(p, 200);
  say("usable size at least asked %d\n", malloc_usable_size(p) >= 200);
  free(p);
  heap_truth_add("check_usable_size", 1, 200, 0, 0);
}

int main(void) {
  use_malloc();
  use_calloc();
  realloc_chain();
  use_memalign();
  use_posix_memalign();
  use_aligned_alloc();
  use_valloc();
  use_pvalloc();
  use_mmap();
  leak_some();
  fail_to_allocate();
  check_usable_size();
  /* Allocated by the library's constructor before collection started: its
   * free is forwarded and pairs with nothing. */
  void* early = early_block();
  say("early block intact %d\n", early != NULL && ((char*)early)[0] == 'e');
  free(early);
  heap_truth_write(NULL);
  say("allocators_target done (%d blocks kept)\n", leaked_count);
  return 0;
}
