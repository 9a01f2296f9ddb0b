/* What collect's -S, -l, -y, -t and -L control, done by a program that
 * measures itself. Usage: collection_control_target MODE [ARG]
 *   run SECONDS     burn CPU for SECONDS of wall time (periodic samples)
 *   signals N       send itself SIGUSR1 N times (collect -l USR1)
 *   pause           SIGUSR2 twice: paused_before_work, resumed_work,
 *                   paused_after_work (collect -y USR2)
 *   window          early_work until 0.5 s, window_work until 2.3 s,
 *                   late_work until 2.8 s after main starts (collect -t)
 *   threads N       N threads each burning 40 ms of CPU (collect -L)
 *   heap_window     allocates at 0.1 s (early_allocs), 1.2 s (window_allocs)
 *                   and 2.3 s (late_allocs) after main starts, 1,000 blocks
 *                   each, freeing all but 10 0.1 s later (collect -t);
 *                   with ARG 1 the same before, between and after two
 *                   SIGUSR2 (allocs_before_resume, allocs_while_resumed,
 *                   allocs_after_pause: collect -y)
 * Truth: {"functions": {...}, "wall_seconds": ..., "signals_sent": ...,
 * "window_timeline": [[CLOCK_MONOTONIC ns, thread CPU s], ...]}: window_work's
 * CPU time as it went, so that the CPU burned inside any wall-clock window
 * can be read off exactly, whatever the machine's load did to it. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "truth.h"

#define NOINLINE __attribute__((noinline))

static double wall_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double main_started;

/* Burns CPU in the caller until `until` seconds after main started. */
static void burn_until(double until) {
  while (wall_seconds() - main_started < until) burn_cpu(0.002);
}

#define TIMED_WORK(name, body)                   \
  NOINLINE void name(double arg) {               \
    const double t0 = thread_cpu_seconds();      \
    body;                                        \
    truth_add(#name, thread_cpu_seconds() - t0); \
  }

TIMED_WORK(steady_work, burn_until(arg))
TIMED_WORK(paused_before_work, burn_cpu(arg))
TIMED_WORK(resumed_work, burn_cpu(arg))
TIMED_WORK(paused_after_work, burn_cpu(arg))
TIMED_WORK(early_work, burn_until(arg))
TIMED_WORK(late_work, burn_until(arg))
TIMED_WORK(thread_work, burn_cpu(arg))

enum { kTimelinePoints = 4096 };
static struct { long long monotonic_ns; double cpu_seconds; } timeline[kTimelinePoints];
static int timeline_points;
static void timeline_add(void) {
  if (timeline_points == kTimelinePoints) return;
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  timeline[timeline_points].monotonic_ns = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
  timeline[timeline_points++].cpu_seconds = thread_cpu_seconds();
}

NOINLINE void window_work(double until) {
  const double t0 = thread_cpu_seconds();
  timeline_add();
  while (wall_seconds() - main_started < until) {
    burn_cpu(0.002);
    timeline_add();
  }
  truth_add("window_work", thread_cpu_seconds() - t0);
}

/* 1,000 allocations, 990 of them freed at `free_at` seconds after main
 * started: the 10 kept are leaks. */
enum { kAllocations = 1000, kKept = 10 };
static void* volatile g_blocks[kAllocations];
static void sleep_until(double at) {
  const double left = at - (wall_seconds() - main_started);
  if (left > 0) usleep((useconds_t)(left * 1e6));
}
#define ALLOCATING(name)                                                    \
  NOINLINE void name(double free_at) {                                      \
    for (int i = 0; i < kAllocations; ++i) g_blocks[i] = malloc(48 + i % 16); \
    sleep_until(free_at);                                                   \
    for (int i = kKept; i < kAllocations; ++i) free(g_blocks[i]);           \
  }
ALLOCATING(early_allocs)
ALLOCATING(window_allocs)
ALLOCATING(late_allocs)
ALLOCATING(allocs_before_resume)
ALLOCATING(allocs_while_resumed)
ALLOCATING(allocs_after_pause)

static void* burning_thread(void* arg) {
  (void)arg;
  thread_work(0.04);
  return NULL;
}

static void write_truth(int signals_sent) {
  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return;
  FILE* f = fopen(path, "w");
  if (f == NULL) return;
  fprintf(f, "{\"functions\": {");
  for (int i = 0; i < truth_count; ++i)
    fprintf(f, "%s\"%s\": %.6f", i ? ", " : "", truth_entries[i].name, truth_entries[i].seconds);
  fprintf(f, "}, \"wall_seconds\": %.6f, \"signals_sent\": %d, \"window_timeline\": [", wall_seconds() - main_started,
          signals_sent);
  for (int i = 0; i < timeline_points; ++i)
    fprintf(f, "%s[%lld, %.9f]", i ? ", " : "", timeline[i].monotonic_ns, timeline[i].cpu_seconds);
  fprintf(f, "]}\n");
  fclose(f);
}

int main(int argc, char** argv) {
  main_started = wall_seconds();
  const char* mode = argc > 1 ? argv[1] : "";
  const double arg = argc > 2 ? atof(argv[2]) : 0;
  int signals_sent = 0;
  if (strcmp(mode, "run") == 0) {
    steady_work(arg);
  } else if (strcmp(mode, "signals") == 0) {
    for (int i = 0; i < (int)arg; ++i) {
      burn_cpu(0.001);
      raise(SIGUSR1); /* handled before raise returns */
      ++signals_sent;
    }
  } else if (strcmp(mode, "pause") == 0) {
    paused_before_work(0.3);
    raise(SIGUSR2);
    resumed_work(0.5);
    raise(SIGUSR2);
    paused_after_work(0.3);
  } else if (strcmp(mode, "window") == 0) {
    early_work(0.5);
    window_work(2.3);
    late_work(2.8);
  } else if (strcmp(mode, "heap_window") == 0 && arg == 0) {
    sleep_until(0.1);
    early_allocs(0.2);
    sleep_until(1.2);
    window_allocs(1.3);
    sleep_until(2.3);
    late_allocs(2.4);
  } else if (strcmp(mode, "heap_window") == 0) {
    allocs_before_resume(0.1);
    raise(SIGUSR2);
    allocs_while_resumed(0.2);
    raise(SIGUSR2);
    allocs_after_pause(0.3);
  } else if (strcmp(mode, "threads") == 0) {
    for (int i = 0; i < (int)arg; ++i) {
      pthread_t thread;
      pthread_create(&thread, NULL, burning_thread, NULL);
      pthread_join(thread, NULL);
    }
  } else {
    fprintf(stderr, "usage: collection_control_target run|signals|pause|window|threads|heap_window [ARG]\n");
    return 2;
  }
  write_truth(signals_sent);
  printf("collection_control_target %s done\n", mode);
  return 0;
}
