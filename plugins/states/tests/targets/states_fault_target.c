/* A target that blocks in major page faults and measures it, for the states
 * plugin's page-fault test:
 *   states_fault_target DIRECTORY
 * writes a 16 MiB file in DIRECTORY, drops its pages from the page cache
 * (fsync, then posix_fadvise POSIX_FADV_DONTNEED), maps it with read-ahead
 * off (MADV_RANDOM) and, in touch_dropped_pages, reads one byte of each
 * page in a scattered order: each touch of a dropped page is a major fault
 * that blocks until the disk has read it. It drops and touches them again
 * until it was blocked 1 s in all (at most 16 passes). Around each pass it
 * measures its wall time (CLOCK_MONOTONIC), its CPU time and run delay, and its own
 * major faults (getrusage RUSAGE_THREAD ru_majflt), and writes to the file
 * named by LUMEN_TEST_TRUTH:
 *   {"pages": N, "major_faults": N, "blocked": s, "wall": s}  (pages touched, passes together)
 * where blocked = wall - CPU time - run delay: the time blocked in the
 * faults. A filesystem that keeps the pages (tmpfs) gives no major fault. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "run_delay.h"

#define FILE_BYTES (16u << 20)
#define PAGE_BYTES 4096u
#define MAX_PASSES 16u
#define MIN_BLOCKED_SECONDS 1.0

static double thread_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long major_faults(void) {
  struct rusage usage;
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_majflt;
}

static volatile unsigned long g_sink;

__attribute__((noinline)) static void touch_dropped_pages(const volatile unsigned char* map, unsigned pages) {
  unsigned long sum = 0;
  /* 2053 is prime and does not divide the page count: every page once. */
  for (unsigned i = 0; i < pages; ++i) sum += map[(size_t)((i * 2053u) % pages) * PAGE_BYTES];
  g_sink = sum;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: states_fault_target DIRECTORY\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/dropped_pages.bin", argv[1]);
  const int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    perror(path);
    return 2;
  }
  static unsigned char chunk[1 << 20];
  memset(chunk, 0x5a, sizeof chunk);
  for (unsigned written = 0; written < FILE_BYTES; written += sizeof chunk)
    if (write(fd, chunk, sizeof chunk) != (ssize_t)sizeof chunk) return 2;
  fsync(fd);
  const unsigned pages = FILE_BYTES / PAGE_BYTES;

  /* Passes until the faults blocked long enough for some hundred readings
   * 10 ms apart: a host that caches the disk serves a fault in tens of
   * microseconds, one pass is then over in 0.2 s, and a reading places
   * only a few of the faults it meets (see the test). */
  long faults = 0;
  double wall = 0, cpu = 0, delay = 0;
  unsigned passes = 0;
  while (passes < MAX_PASSES && (passes == 0 || wall - cpu - delay < MIN_BLOCKED_SECONDS)) {
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
    unsigned char* map = mmap(NULL, FILE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) return 2;
    madvise(map, FILE_BYTES, MADV_RANDOM);
    const long faults_before = major_faults();
    const double delay_before = run_delay_seconds();
    const double cpu_before = thread_cpu_seconds();
    const double start = monotonic_seconds();
    touch_dropped_pages(map, pages);
    wall += monotonic_seconds() - start;
    cpu += thread_cpu_seconds() - cpu_before;
    delay += run_delay_seconds() - delay_before;
    faults += major_faults() - faults_before;
    munmap(map, FILE_BYTES);  /* mapped pages are not dropped */
    ++passes;
  }

  close(fd);
  unlink(path);
  const char* truth = getenv("LUMEN_TEST_TRUTH");
  FILE* out = truth ? fopen(truth, "w") : NULL;
  if (out) {
    fprintf(out, "{\"pages\": %u, \"major_faults\": %ld, \"blocked\": %.6f, \"wall\": %.6f}\n", pages * passes,
            faults, wall - cpu - delay, wall);
    fclose(out);
  }
  printf("states_fault_target done\n");
  return 0;
}
