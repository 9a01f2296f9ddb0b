/* Many short threads, created five at a time, for the states plugin's
 * begin and end: each measures itself from the first to the last thing its
 * function does (CLOCK_MONOTONIC, its CPU-time clock, its run delay from
 * /proc/thread-self/schedstat), and the main thread when it created and
 * joined it. Kinds, in turn:
 *   plain      allocates, frees and computes a little, then returns
 *   waiter     waits on a condition variable the main thread signals once
 *              it created the five (a join or work-queue waiter)
 *   locker     takes a mutex the main thread holds until then
 *   sleeper    sleeps 1 ms in nanosleep
 *   exiter     computes a little and ends with pthread_exit
 * It writes, to the file named by LUMEN_TEST_TRUTH:
 *   {"threads": [{"tid": N, "kind": "K", "created": s, "start": s, "end": s,
 *     "joined": s, "cpu_start": s, "cpu_end": s, "delay_start": s,
 *     "delay_end": s}, ...]}
 * (seconds; "created" just before pthread_create, "joined" just after
 * pthread_join) and prints one line, the same with and without collect.
 *   states_churn_target [THREADS]   (default 400, a multiple of 5) */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "run_delay.h"

enum { kPlain, kWaiter, kLocker, kSleeper, kExiter, kKinds };
static const char* const kKindNames[kKinds] = {"plain", "waiter", "locker", "sleeper", "exiter"};

struct worker {
  int kind;
  pid_t tid;
  double created, start, end, joined;
  double cpu_start, cpu_end, delay_start, delay_end;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t g_gate_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_gate = PTHREAD_COND_INITIALIZER;
static int g_gate_open;

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void compute(void) {
  volatile double x = 0;
  for (int i = 0; i < 20000; ++i) x += i * 0.5;
}

/* The wall clock before the run delay: a wait after the schedstat snapshot
 * (a preemption in its close) then falls in [end, joined]. */
static void measure_end(struct worker* w) {
  w->cpu_end = cpu_seconds();
  w->end = monotonic_seconds();
  w->delay_end = run_delay_seconds();
}

static void* run_worker(void* argument) {
  struct worker* w = argument;
  w->start = monotonic_seconds();
  w->cpu_start = cpu_seconds();
  w->delay_start = run_delay_seconds();
  w->tid = (pid_t)syscall(SYS_gettid);
  switch (w->kind) {
    case kPlain: {
      void* volatile block = malloc(64);
      free(block);
      compute();
      break;
    }
    case kWaiter:
      pthread_mutex_lock(&g_gate_lock);
      while (!g_gate_open) pthread_cond_wait(&g_gate, &g_gate_lock);
      pthread_mutex_unlock(&g_gate_lock);
      break;
    case kLocker:
      pthread_mutex_lock(&g_lock);
      pthread_mutex_unlock(&g_lock);
      break;
    case kSleeper: {
      const struct timespec nap = {0, 1000 * 1000};
      nanosleep(&nap, NULL);
      break;
    }
    case kExiter:
      compute();
      measure_end(w);
      pthread_exit(NULL);
  }
  measure_end(w);
  return NULL;
}

int main(int argc, char** argv) {
  const int count = argc > 1 ? atoi(argv[1]) / kKinds * kKinds : 400;
  struct worker* workers = calloc((size_t)count, sizeof *workers);
  if (workers == NULL) return 1;
  for (int first = 0; first < count; first += kKinds) {
    pthread_t threads[kKinds];
    pthread_mutex_lock(&g_lock);
    g_gate_open = 0;
    for (int k = 0; k < kKinds; ++k) {
      struct worker* w = &workers[first + k];
      w->kind = k;
      w->created = monotonic_seconds();
      if (pthread_create(&threads[k], NULL, run_worker, w) != 0) return 1;
    }
    /* the waiter and the locker block, as a rule, before this */
    usleep(200);
    pthread_mutex_unlock(&g_lock);
    pthread_mutex_lock(&g_gate_lock);
    g_gate_open = 1;
    pthread_cond_broadcast(&g_gate);
    pthread_mutex_unlock(&g_gate_lock);
    for (int k = 0; k < kKinds; ++k) {
      pthread_join(threads[k], NULL);
      workers[first + k].joined = monotonic_seconds();
    }
  }
  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path != NULL) {
    FILE* out = fopen(path, "w");
    if (out == NULL) return 1;
    fprintf(out, "{\"threads\": [");
    for (int i = 0; i < count; ++i) {
      const struct worker* w = &workers[i];
      fprintf(out,
              "%s{\"tid\": %d, \"kind\": \"%s\", \"created\": %.9f, \"start\": %.9f, \"end\": %.9f, \"joined\": %.9f, "
              "\"cpu_start\": %.9f, \"cpu_end\": %.9f, \"delay_start\": %.9f, \"delay_end\": %.9f}",
              i ? ", " : "", (int)w->tid, kKindNames[w->kind], w->created, w->start, w->end, w->joined, w->cpu_start,
              w->cpu_end, w->delay_start, w->delay_end);
    }
    fprintf(out, "]}\n");
    fclose(out);
  }
  printf("states_churn_target: %d threads\n", count);
  free(workers);
  return 0;
}
