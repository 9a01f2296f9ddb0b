/* A test target's own clocks: wall time, and the calling thread's run delay
 * (time runnable but waiting for a CPU) as the kernel counts it. */
#ifndef LUMEN_TEST_RUN_DELAY_H
#define LUMEN_TEST_RUN_DELAY_H

#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static inline double monotonic_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* This thread's run delay so far, from /proc/thread-self/schedstat ("CPU
 * time, run delay, timeslices" in ns); 0 where the kernel keeps none. */
static inline double run_delay_seconds(void) {
  const int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[128];
  const ssize_t n = read(fd, text, sizeof text - 1);
  close(fd);
  if (n <= 0) return 0;
  text[n] = '\0';
  unsigned long long on_cpu = 0, delay = 0;
  if (sscanf(text, "%llu %llu", &on_cpu, &delay) != 2) return 0;
  return (double)delay / 1e9;
}

#endif
