/* A target whose threads spend their time off the CPU in known ways and
 * measure it themselves, for the states plugin's tests:
 *   sleep_in_nanosleep   sleeps in nanosleep (CLOCK_MONOTONIC around it;
 *                        every call must return 0: a sampler that signalled
 *                        the thread would cut it short with EINTR)
 *   wait_for_mutex       blocks in pthread_mutex_lock on a mutex the main
 *                        thread holds (CLOCK_MONOTONIC around the call)
 *   burn_pinned          two threads pinned to one CPU burning CPU time:
 *                        each waits for the CPU about as long as it runs
 *                        (its run delay from /proc/thread-self/schedstat)
 * It writes, to the file named by LUMEN_TEST_TRUTH:
 *   {"functions": {"FUNCTION": {"sleep": s, "lock": s, "wait": s}, ...},
 *    "threads": [{"tid": N, "function": "FUNCTION", "lifetime": s,
 *                 "since_created": s}, ...],
 *    "interrupted": N}
 * and prints one line, the same with and without collect. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "run_delay.h"

static double thread_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct worker {
  const char* function;
  pid_t tid;
  double created;        /* when the main thread called pthread_create */
  double lifetime;       /* from the start of run_worker to its end */
  double since_created;  /* from pthread_create to the end of run_worker */
  double sleep, lock, wait;
  int interrupted;
};

static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;
static volatile int g_waiter_ready;

__attribute__((noinline)) static void sleep_in_nanosleep(struct worker* w) {
  const double delay_before = run_delay_seconds();
  for (int i = 0; i < 20; ++i) {
    struct timespec request = {0, 40 * 1000 * 1000};
    const double start = monotonic_seconds();
    if (nanosleep(&request, NULL) != 0) ++w->interrupted;
    w->sleep += monotonic_seconds() - start;
  }
  /* a wait for the CPU after a wake-up counts as wait, not sleep */
  const double delay = run_delay_seconds() - delay_before;
  w->sleep -= delay;
  w->wait += delay;
}

__attribute__((noinline)) static void wait_for_mutex(struct worker* w) {
  const double delay_before = run_delay_seconds();
  g_waiter_ready = 1;
  const double start = monotonic_seconds();
  pthread_mutex_lock(&g_mutex);
  w->lock += monotonic_seconds() - start;
  pthread_mutex_unlock(&g_mutex);
  const double delay = run_delay_seconds() - delay_before;
  w->lock -= delay;
  w->wait += delay;
}

static volatile double g_sink;

__attribute__((noinline)) static void burn_pinned(struct worker* w) {
  const double delay_before = run_delay_seconds();
  double x = 1.0;
  while (thread_cpu_seconds() < 0.5)
    for (int i = 0; i < 100000; ++i) x = x * 1.0000001 + 1e-9;
  g_sink = x;
  w->wait += run_delay_seconds() - delay_before;
}

static void* run_worker(void* argument) {
  struct worker* w = argument;
  const double start = monotonic_seconds();
  w->tid = (pid_t)syscall(SYS_gettid);
  if (strcmp(w->function, "burn_pinned") == 0) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    sched_setaffinity(0, sizeof one, &one);
    burn_pinned(w);
  } else if (strcmp(w->function, "wait_for_mutex") == 0) {
    wait_for_mutex(w);
  } else {
    sleep_in_nanosleep(w);
  }
  const double end = monotonic_seconds();
  w->lifetime = end - start;
  w->since_created = end - w->created;
  return NULL;
}

static void write_truth(const struct worker* workers, int count) {
  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return;
  FILE* out = fopen(path, "w");
  if (out == NULL) return;
  fprintf(out, "{\"functions\": {");
  const char* names[] = {"sleep_in_nanosleep", "wait_for_mutex", "burn_pinned"};
  int interrupted = 0;
  for (int n = 0; n < 3; ++n) {
    double sleep = 0, lock = 0, wait = 0;
    for (int i = 0; i < count; ++i) {
      if (strcmp(workers[i].function, names[n]) != 0) continue;
      sleep += workers[i].sleep, lock += workers[i].lock, wait += workers[i].wait;
    }
    fprintf(out, "%s\"%s\": {\"sleep\": %.6f, \"lock\": %.6f, \"wait\": %.6f}", n ? ", " : "", names[n], sleep, lock,
            wait);
  }
  fprintf(out, "}, \"threads\": [");
  for (int i = 0; i < count; ++i) {
    interrupted += workers[i].interrupted;
    fprintf(out, "%s{\"tid\": %d, \"function\": \"%s\", \"lifetime\": %.6f, \"since_created\": %.6f}",
            i ? ", " : "", (int)workers[i].tid, workers[i].function, workers[i].lifetime, workers[i].since_created);
  }
  fprintf(out, "], \"interrupted\": %d}\n", interrupted);
  fclose(out);
}

/* Threads idle for the whole run (blocked on a condition variable), beside
 * the workers: `states_target IDLE` has the sampler weigh the process's
 * CPU-time clock rather than read each idle thread's. */
static pthread_mutex_t g_idle_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_idle_end = PTHREAD_COND_INITIALIZER;
static int g_idle_over;

static void* stay_idle(void* unused) {
  (void)unused;
  pthread_mutex_lock(&g_idle_lock);
  while (!g_idle_over) pthread_cond_wait(&g_idle_end, &g_idle_lock);
  pthread_mutex_unlock(&g_idle_lock);
  return NULL;
}

int main(int argc, char** argv) {
  const int idle = argc > 1 ? atoi(argv[1]) : 0;
  pthread_t idle_threads[256];
  for (int i = 0; i < idle && i < 256; ++i) pthread_create(&idle_threads[i], NULL, stay_idle, NULL);
  struct worker workers[4] = {
      {.function = "sleep_in_nanosleep"},
      {.function = "wait_for_mutex"},
      {.function = "burn_pinned"},
      {.function = "burn_pinned"},
  };
  pthread_t threads[4];
  pthread_mutex_lock(&g_mutex);
  for (int i = 0; i < 4; ++i) {
    workers[i].created = monotonic_seconds();
    pthread_create(&threads[i], NULL, run_worker, &workers[i]);
  }
  while (!g_waiter_ready) sched_yield();
  struct timespec hold = {0, 600 * 1000 * 1000};
  nanosleep(&hold, NULL);
  pthread_mutex_unlock(&g_mutex);
  for (int i = 0; i < 4; ++i) pthread_join(threads[i], NULL);
  pthread_mutex_lock(&g_idle_lock);
  g_idle_over = 1;
  pthread_cond_broadcast(&g_idle_end);
  pthread_mutex_unlock(&g_idle_lock);
  for (int i = 0; i < idle && i < 256; ++i) pthread_join(idle_threads[i], NULL);
  write_truth(workers, 4);
  int interrupted = 0;
  for (int i = 0; i < 4; ++i) interrupted += workers[i].interrupted;
  printf("states_target done, %d sleeps interrupted\n", interrupted);
  return interrupted == 0 ? 0 : 3;
}
