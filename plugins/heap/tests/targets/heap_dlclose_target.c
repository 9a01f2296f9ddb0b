/* Leaks from a library that is then unloaded: dlopen A, 301 blocks of 4099
 * bytes leaked in liba_leak, dlclose A, a pause, dlopen B (the same code:
 * the loader puts it where A was), 173 blocks of 8197 bytes leaked in
 * libb_leak. The truth names each function's leaks, whether B was loaded at
 * A's address, and the monotonic times between which neither allocates.
 * Usage: heap_dlclose_target LIBA LIBB */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <time.h>

#include "heap_truth.h"

typedef long long (*leak_function)(int count, size_t size);

static unsigned long long monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* Opens `path`, leaks `count` blocks of `size` through `symbol`, returns
 * the library's base address; closes it when `close_it`. */
static unsigned long run_library(const char* path, const char* symbol, int count, size_t size, int close_it) {
  void* library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    say("dlopen %s failed: %s\n", path, dlerror());
    exit(2);
  }
  struct link_map* map = NULL;
  dlinfo(library, RTLD_DI_LINKMAP, &map);
  const unsigned long base = map != NULL ? (unsigned long)map->l_addr : 0;
  const leak_function leak = (leak_function)dlsym(library, symbol);
  if (leak == NULL) exit(3);
  const long long bytes = leak(count, size);
  heap_truth_add(symbol, count, bytes, count, bytes);
  if (close_it) dlclose(library);
  return base;
}

int main(int argc, char** argv) {
  if (argc < 3) return 2;
  const unsigned long base_a = run_library(argv[1], "liba_leak", 301, 4099, 1);
  const unsigned long long a_done = monotonic_ns();
  const struct timespec pause = {0, 200 * 1000 * 1000};
  nanosleep(&pause, NULL);
  const unsigned long long b_starts = monotonic_ns();
  const unsigned long base_b = run_library(argv[2], "libb_leak", 173, 8197, 0);
  heap_truth_write(NULL);
  /* The times and addresses beside the truth, in a file of their own. */
  const char* truth = getenv("LUMEN_TEST_TRUTH");
  if (truth != NULL) {
    char path[4096], text[256];
    snprintf(path, sizeof path, "%s.times", truth);
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    const int n = snprintf(text, sizeof text, "{\"a_done_ns\": %llu, \"b_starts_ns\": %llu, \"same_address\": %d}\n",
                           a_done, b_starts, base_a == base_b);
    if (fd >= 0) {
      write_all(fd, text, (size_t)n);
      close(fd);
    }
  }
  say("B loaded where A was: %d\n", base_a == base_b);
  return 0;
}
