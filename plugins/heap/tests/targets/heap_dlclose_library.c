/* Built twice, as libheap_dlclose_a.so (liba_leak) and libheap_dlclose_b.so
 * (libb_leak): one code, so each function sits at the same offset of its
 * library, and a library loaded where the other was unloaded puts its own
 * function at the address the other's allocations recorded. */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define JOIN(a, b) a##b
#define NAMED(prefix, suffix) JOIN(prefix, suffix)

/* Allocates `count` blocks of `size` bytes and keeps none of them (leaks);
 * returns the bytes allocated. */
NOINLINE __attribute__((visibility("default"))) long long NAMED(LEAK_PREFIX, _leak)(int count, size_t size) {
  long long bytes = 0;
  for (int i = 0; i < count; ++i) {
    volatile char* block = malloc(size);
    if (block != NULL) {
      block[0] = 1;
      bytes += (long long)size;
    }
  }
  return bytes;
}
