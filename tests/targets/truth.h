/* Test targets measure what they do: each records the CPU time its own
 * functions spent (CLOCK_THREAD_CPUTIME_ID around the work) and writes it as
 * JSON, {"functions": {"name": seconds, ...}}, to the file named by the
 * LUMEN_TEST_TRUTH environment variable. */
#ifndef LUMEN_TEST_TRUTH_H
#define LUMEN_TEST_TRUTH_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double thread_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Spins until the calling thread has used `seconds` more CPU time; returns a
 * value that depends on the work so the loop is not optimized away. */
static inline double burn_cpu(double seconds) {
  const double until = thread_cpu_seconds() + seconds;
  volatile double x = 1.0;
  while (thread_cpu_seconds() < until)
    for (int i = 0; i < 20000; ++i) x = x * 1.0000001 + 1e-9;
  return x;
}

#define TRUTH_MAX 64
struct truth_entry {
  const char* name;
  double seconds;
};
static struct truth_entry truth_entries[TRUTH_MAX];
static int truth_count;
static pthread_mutex_t truth_lock = PTHREAD_MUTEX_INITIALIZER;

static inline void truth_add(const char* name, double seconds) {
  pthread_mutex_lock(&truth_lock);
  int i = 0;
  while (i < truth_count && truth_entries[i].name != name) ++i;
  if (i == truth_count && truth_count < TRUTH_MAX) truth_entries[truth_count++] = (struct truth_entry){name, 0};
  if (i < TRUTH_MAX) truth_entries[i].seconds += seconds;
  pthread_mutex_unlock(&truth_lock);
}

static inline void truth_write(void) {
  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return;
  FILE* f = fopen(path, "w");
  if (f == NULL) return;
  fprintf(f, "{\"functions\": {");
  for (int i = 0; i < truth_count; ++i)
    fprintf(f, "%s\"%s\": %.6f", i ? ", " : "", truth_entries[i].name, truth_entries[i].seconds);
  fprintf(f, "}}\n");
  fclose(f);
}

#endif
