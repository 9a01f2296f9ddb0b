/* The one allocation pthread_create makes in the C library: a new thread's
 * TLS vector (glibc's allocate_dtv), calloc(modules + 16, 16) for the
 * highest TLS module id among the loaded objects (14 spare slots and 2 of
 * the vector's own). It grows with what else is loaded (a tool's preloaded
 * libraries that have TLS), so a target counts it as it finds it, after
 * its threads started. The vector stays with the thread's cached stack:
 * never freed. */
#ifndef LUMEN_HEAP_THREAD_VECTOR_H
#define LUMEN_HEAP_THREAD_VECTOR_H

#include <link.h>

#include "heap_truth.h"

static int heap_highest_tls_module(struct dl_phdr_info* info, size_t size, void* highest) {
  (void)size;
  if (info->dlpi_tls_modid > *(size_t*)highest) *(size_t*)highest = info->dlpi_tls_modid;
  return 0;
}

/* Counts the vectors of `threads` threads the program started. */
static inline void heap_truth_thread_vectors(int threads) {
  size_t highest = 0;
  dl_iterate_phdr(heap_highest_tls_module, &highest);
  const long long bytes = (long long)(highest + 16) * 16;
  heap_truth_add("allocate_dtv", threads, threads * bytes, threads, threads * bytes);
}

#endif
