/* Heap test targets count what they allocate themselves, per function, and
 * write it as JSON to the file named by LUMEN_TEST_TRUTH (a forked child to
 * LUMEN_TEST_TRUTH.<pid>.<role>):
 *   {"functions": {"name": {"allocations": N, "bytes": N, "leaks": N,
 *                           "leaked_bytes": N}, ...}}
 * "name" is the function that calls the allocator (for C++ new, the function
 * that calls operator new). Nothing here allocates: truth and output go
 * through snprintf into fixed buffers and write(2), so the targets' own heap
 * events are exactly the ones they count. */
#ifndef LUMEN_HEAP_TRUTH_H
#define LUMEN_HEAP_TRUTH_H

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

struct heap_truth_entry {
  const char* name;
  long long allocations, bytes, leaks, leaked_bytes;
};

#define HEAP_TRUTH_MAX 32
static struct heap_truth_entry heap_truth_entries[HEAP_TRUTH_MAX];
static int heap_truth_count;
static pthread_mutex_t heap_truth_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void heap_truth_add(const char* name, long long allocations, long long bytes, long long leaks,
                                  long long leaked_bytes) {
  pthread_mutex_lock(&heap_truth_lock);
  int i = 0;
  while (i < heap_truth_count && strcmp(heap_truth_entries[i].name, name) != 0) ++i;
  if (i == heap_truth_count && heap_truth_count < HEAP_TRUTH_MAX) {
    heap_truth_entries[i].name = name;
    ++heap_truth_count;
  }
  if (i < HEAP_TRUTH_MAX) {
    heap_truth_entries[i].allocations += allocations;
    heap_truth_entries[i].bytes += bytes;
    heap_truth_entries[i].leaks += leaks;
    heap_truth_entries[i].leaked_bytes += leaked_bytes;
  }
  pthread_mutex_unlock(&heap_truth_lock);
}

/* Forgets what was counted (a forked child counts only its own work). */
static inline void heap_truth_reset(void) { heap_truth_count = 0; memset(heap_truth_entries, 0, sizeof heap_truth_entries); }

static inline void write_all(int fd, const char* text, size_t length) {
  while (length > 0) {
    const ssize_t n = write(fd, text, length);
    if (n <= 0) return;
    text += n;
    length -= (size_t)n;
  }
}

/* printf to standard output without stdio's buffer (which is allocated). */
static inline void say(const char* format, ...) {
  char line[512];
  va_list arguments;
  va_start(arguments, format);
  const int n = vsnprintf(line, sizeof line, format, arguments);
  va_end(arguments);
  if (n > 0) write_all(1, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* role: NULL for the process the test started, else the suffix's role. */
static inline void heap_truth_write(const char* role) {
  const char* base = getenv("LUMEN_TEST_TRUTH");
  if (base == NULL) return;
  char path[4096];
  if (role == NULL) snprintf(path, sizeof path, "%s", base);
  else snprintf(path, sizeof path, "%s.%d.%s", base, (int)getpid(), role);
  const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  static char json[HEAP_TRUTH_MAX * 160 + 64];
  size_t used = (size_t)snprintf(json, sizeof json, "{\"functions\": {");
  for (int i = 0; i < heap_truth_count && used < sizeof json; ++i) {
    const struct heap_truth_entry* e = &heap_truth_entries[i];
    used += (size_t)snprintf(json + used, sizeof json - used,
                             "%s\"%s\": {\"allocations\": %lld, \"bytes\": %lld, \"leaks\": %lld, \"leaked_bytes\": %lld}",
                             i ? ", " : "", e->name, e->allocations, e->bytes, e->leaks, e->leaked_bytes);
  }
  if (used < sizeof json) used += (size_t)snprintf(json + used, sizeof json - used, "}}\n");
  write_all(fd, json, used < sizeof json ? used : sizeof json - 1);
  close(fd);
}

/* Uses a block so that nothing about it can be optimized away. */
static inline void touch(void* p, size_t size) {
  if (p != NULL && size > 0) {
    ((volatile char*)p)[0] = 1;
    ((volatile char*)p)[size - 1] = 2;
  }
}

#endif
