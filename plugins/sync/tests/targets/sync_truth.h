/* Truth for the sync tests: the target measures every wait it asks lumen to
 * trace, with CLOCK_MONOTONIC around the call, and writes them as JSON to
 * the file named by LUMEN_TEST_TRUTH:
 *
 *   {"waits": {"FUNCTION": {"object": "SYMBOL or empty", "kind": "mutex",
 *                           "seconds": [w1, w2, ...],
 *                           "queued": [q1, q2, ...],
 *                           "cpu": [c1, c2, ...]}, ...},
 *    "cpu": {"FUNCTION": seconds, ...}}
 *
 * FUNCTION is the function that makes the traced call (the leaf of the
 * recorded stack), SYMBOL the global variable waited on. "queued" is the time
 * the thread spent runnable but not running during each measurement (the
 * kernel's run delay): a wait measured around a traced call may include a
 * preemption just outside the interposer's own clock reads, and on a busy
 * machine that is the only honest allowance. "cpu" is the thread's own CPU
 * time during each measurement: a thread blocked in a wait uses next to none,
 * so what it used was the work around the wait (the interposer's way in and
 * out, the first record of a new thread setting up its buffers), which no
 * recorded wait includes. Noting a wait takes no lock (an
 * atomic index), so the truth adds no traced call of its own. */
#ifndef LUMEN_SYNC_TRUTH_H
#define LUMEN_SYNC_TRUTH_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "run_delay.h"

static inline double thread_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Where one measured wait began. */
struct wait_start {
  double at;
  double queued;
  double cpu;
};

static inline struct wait_start wait_begins(void) {
  struct wait_start s;
  s.queued = run_delay_seconds();
  s.cpu = thread_cpu_seconds();
  s.at = monotonic_seconds();
  return s;
}

/* Sleeps (not a synchronization: used only to make a known wait for other
 * threads, e.g. while holding a lock). */
static inline void sleep_seconds(double seconds) {
  struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

#define WAIT_CAPACITY 4096

struct wait_truth {
  const char* function;
  const char* object;
  const char* kind;
  int count; /* updated atomically */
  double seconds[WAIT_CAPACITY];
  double queued[WAIT_CAPACITY];
  double cpu[WAIT_CAPACITY];
};

#define MAX_WAIT_TRUTHS 32
static struct wait_truth* wait_truths[MAX_WAIT_TRUTHS];
static int wait_truth_count;

struct cpu_truth {
  const char* function;
  double seconds;
};
#define MAX_CPU_TRUTHS 8
static struct cpu_truth cpu_truths[MAX_CPU_TRUTHS];
static int cpu_truth_count;

/* Declares the truth of one function; call from main before threads start. */
static inline struct wait_truth* wait_truth(const char* function, const char* object, const char* kind) {
  for (int i = 0; i < wait_truth_count; ++i)
    if (wait_truths[i]->function == function) return wait_truths[i];
  struct wait_truth* t = calloc(1, sizeof *t);
  t->function = function;
  t->object = object;
  t->kind = kind;
  wait_truths[wait_truth_count++] = t;
  return t;
}

/* Notes the wait that began at `start` and has just ended. */
static inline void note_wait(struct wait_truth* t, struct wait_start start) {
  const double seconds = monotonic_seconds() - start.at;
  const double cpu = thread_cpu_seconds() - start.cpu;
  const double queued = run_delay_seconds() - start.queued;
  const int i = __atomic_fetch_add(&t->count, 1, __ATOMIC_RELAXED);
  if (i < WAIT_CAPACITY) {
    t->seconds[i] = seconds;
    t->queued[i] = queued;
    t->cpu[i] = cpu;
  }
}

static inline void note_cpu(const char* function, double seconds) {
  cpu_truths[cpu_truth_count++] = (struct cpu_truth){function, seconds};
}

static inline void write_truth(void) {
  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return;
  FILE* f = fopen(path, "w");
  if (f == NULL) return;
  fprintf(f, "{\"waits\": {");
  for (int i = 0; i < wait_truth_count; ++i) {
    const struct wait_truth* t = wait_truths[i];
    fprintf(f, "%s\"%s\": {\"object\": \"%s\", \"kind\": \"%s\", \"seconds\": [", i ? ", " : "", t->function,
            t->object, t->kind);
    const int n = t->count < WAIT_CAPACITY ? t->count : WAIT_CAPACITY;
    for (int j = 0; j < n; ++j) fprintf(f, "%s%.9f", j ? ", " : "", t->seconds[j]);
    fprintf(f, "], \"queued\": [");
    for (int j = 0; j < n; ++j) fprintf(f, "%s%.9f", j ? ", " : "", t->queued[j]);
    fprintf(f, "], \"cpu\": [");
    for (int j = 0; j < n; ++j) fprintf(f, "%s%.9f", j ? ", " : "", t->cpu[j]);
    fprintf(f, "]}");
  }
  fprintf(f, "}, \"cpu\": {");
  for (int i = 0; i < cpu_truth_count; ++i)
    fprintf(f, "%s\"%s\": %.6f", i ? ", " : "", cpu_truths[i].function, cpu_truths[i].seconds);
  fprintf(f, "}}\n");
  fclose(f);
}

/* Pipes tell threads when to go on without a traced call: a thread blocked
 * in read() is not what the tests measure. */
static inline void pipe_post(int fds[2], int n) {
  for (int i = 0; i < n; ++i) {
    const char byte = 1;
    while (write(fds[1], &byte, 1) != 1) {
    }
  }
}

static inline void pipe_await(int fds[2], int n) {
  for (int i = 0; i < n; ++i) {
    char byte;
    while (read(fds[0], &byte, 1) != 1) {
    }
  }
}

#endif
