/* N threads that sleep nearly all the time beside one thread burning a
 * fixed amount of CPU work; prints the work's wall time and, when
 * collected, the CPU time of the collector's own threads ("lumen-*" in
 * /proc/self/task/N/comm, from their schedstat) per second of the run:
 *   states_bench_target THREADS WORK_ITERATIONS [NAP_MS]
 *   -> work_seconds=W elapsed=E collector_cpu_per_second=C
 *      steady_cpu_per_second=S start_cpu_ms=M
 * C is over the whole run, start included. S is from a mark 1 s after the
 * sleepers were created (the collector has read and unwound each of them by
 * then) to the end: the steady state. M is the collector's CPU up to the
 * mark less S times the time to the mark: what the start cost on top
 * (the sleepers' first readings and stacks). S and M are -1 when the work
 * ended before the mark.
 * NAP_MS (default 50): each sleeper wakes every NAP_MS ms (nanosleep); 0:
 * the sleepers are idle, blocked on a condition variable until the end. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile int g_stop;
static volatile double g_sink;
static long g_nap_ms = 50;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_done = PTHREAD_COND_INITIALIZER;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void* sleeper(void* unused) {
  (void)unused;
  if (g_nap_ms == 0) {
    pthread_mutex_lock(&g_lock);
    while (!g_stop) pthread_cond_wait(&g_done, &g_lock);
    pthread_mutex_unlock(&g_lock);
    return NULL;
  }
  struct timespec nap = {g_nap_ms / 1000, (g_nap_ms % 1000) * 1000 * 1000};
  while (!g_stop) nanosleep(&nap, NULL);
  return NULL;
}

static double read_text(const char* path, char* text, size_t size) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  const ssize_t n = read(fd, text, size - 1);
  close(fd);
  if (n <= 0) return -1;
  text[n] = '\0';
  return 0;
}

/* CPU seconds of the collector's threads so far. */
static double collector_cpu(void) {
  DIR* tasks = opendir("/proc/self/task");
  if (tasks == NULL) return 0;
  double total = 0;
  struct dirent* entry;
  while ((entry = readdir(tasks)) != NULL) {
    if (entry->d_name[0] == '.') continue;
    char path[sizeof "/proc/self/task//schedstat" + sizeof entry->d_name], text[128];
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", entry->d_name);
    if (read_text(path, text, sizeof text) != 0 || strncmp(text, "lumen-", 6) != 0) continue;
    snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", entry->d_name);
    if (read_text(path, text, sizeof text) == 0) total += strtod(text, NULL) / 1e9;
  }
  closedir(tasks);
  return total;
}

int main(int argc, char** argv) {
  const int threads = argc > 1 ? atoi(argv[1]) : 100;
  const long work = argc > 2 ? atol(argv[2]) : 300000000L;
  if (argc > 3) g_nap_ms = atol(argv[3]);
  const double start = now();
  pthread_t* ids = calloc((size_t)threads, sizeof *ids);
  pthread_attr_t small;
  pthread_attr_init(&small);
  pthread_attr_setstacksize(&small, 64 * 1024);
  for (int i = 0; i < threads; ++i) pthread_create(&ids[i], &small, sleeper, NULL);
  const double work_start = now();
  const double mark_after = work_start + 1.0;
  double mark = -1, cpu_at_mark = 0;
  double x = 1.0;
  for (long i = 0; i < work; ++i) {
    x = x * 1.0000001 + 1e-9;
    if ((i & 0xfffff) == 0 && mark < 0 && now() >= mark_after) {
      cpu_at_mark = collector_cpu();
      mark = now() - start;
    }
  }
  g_sink = x;
  const double work_seconds = now() - work_start;
  const double cpu = collector_cpu();
  const double elapsed = now() - start;
  double steady = -1, start_ms = -1;
  if (mark > 0 && elapsed > mark) {
    steady = (cpu - cpu_at_mark) / (elapsed - mark);
    start_ms = 1000 * (cpu_at_mark - steady * mark);
  }
  pthread_mutex_lock(&g_lock);
  g_stop = 1;
  pthread_cond_broadcast(&g_done);
  pthread_mutex_unlock(&g_lock);
  for (int i = 0; i < threads; ++i) pthread_join(ids[i], NULL);
  printf("work_seconds=%.4f elapsed=%.4f collector_cpu_per_second=%.5f steady_cpu_per_second=%.5f start_cpu_ms=%.2f\n",
         work_seconds, elapsed, cpu / elapsed, steady, start_ms);
  free(ids);
  return 0;
}
