/* User and system CPU time apart: one function burns user CPU, one burns
 * system CPU (reading /dev/zero in large blocks: the kernel clears the
 * buffer), on the main thread and on a second thread. Each function's user
 * and system time are measured around it with getrusage(RUSAGE_THREAD); the
 * truth file gets {"functions": {name: CPU seconds}, "user": {...},
 * "system": {...}, "process": {"user": s, "system": s}} (the process's
 * RUSAGE_SELF just before it exits).
 * Usage: cpu_split_target [seconds_scale] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "truth.h"

#define NOINLINE __attribute__((noinline))

struct split_entry {
  const char* name;
  double user, system;
};
static struct split_entry splits[4];
static int split_count;

static void thread_times(double* user, double* system) {
  struct rusage usage;
  getrusage(RUSAGE_THREAD, &usage);
  *user = (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6;
  *system = (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6;
}

/* Adds what the calling thread used since (user0, system0) to `name`. */
static void split_add(const char* name, double user0, double system0, double cpu0) {
  double user, system;
  thread_times(&user, &system);
  truth_add(name, thread_cpu_seconds() - cpu0);
  pthread_mutex_lock(&truth_lock);
  int i = 0;
  while (i < split_count && splits[i].name != name) ++i;
  if (i == split_count) splits[split_count++] = (struct split_entry){name, 0, 0};
  splits[i].user += user - user0;
  splits[i].system += system - system0;
  pthread_mutex_unlock(&truth_lock);
}

NOINLINE void burn_user(double seconds) {
  double user0, system0, cpu0 = thread_cpu_seconds();
  thread_times(&user0, &system0);
  burn_cpu(seconds);
  split_add("burn_user", user0, system0, cpu0);
}

NOINLINE void burn_system(double seconds) {
  double user0, system0, cpu0 = thread_cpu_seconds();
  thread_times(&user0, &system0);
  const size_t block_bytes = 1 << 20;
  char* block = malloc(block_bytes);
  const int zero = open("/dev/zero", O_RDONLY);
  if (block == NULL || zero < 0) exit(3);
  const double until = cpu0 + seconds;
  while (thread_cpu_seconds() < until)
    if (read(zero, block, block_bytes) != (ssize_t)block_bytes) exit(4);
  close(zero);
  free(block);
  split_add("burn_system", user0, system0, cpu0);
}

static double scale = 1.0;

/* Ends each thread's work: a sample's window straddling the end of the last
 * measured function is credited where the sample lands, and a thread's time
 * after its last sample is never credited, so neither measured function is
 * a thread's last. */
NOINLINE void settle(void) { burn_cpu(0.1 * scale); }

static void* second_thread(void* arg) {
  (void)arg;
  burn_system(0.3 * scale);
  burn_user(0.2 * scale);
  settle();
  return NULL;
}

static void write_table(FILE* f, const char* key, int system) {
  fprintf(f, ", \"%s\": {", key);
  for (int i = 0; i < split_count; ++i)
    fprintf(f, "%s\"%s\": %.6f", i ? ", " : "", splits[i].name, system ? splits[i].system : splits[i].user);
  fprintf(f, "}");
}

int main(int argc, char** argv) {
  if (argc > 1) scale = atof(argv[1]);
  pthread_t thread;
  pthread_create(&thread, NULL, second_thread, NULL);
  burn_user(0.5 * scale);
  burn_system(0.5 * scale);
  settle();
  pthread_join(thread, NULL);

  struct rusage self;
  getrusage(RUSAGE_SELF, &self);
  const char* path = getenv("LUMEN_TEST_TRUTH");
  FILE* f = path ? fopen(path, "w") : NULL;
  if (f != NULL) {
    fprintf(f, "{\"functions\": {");
    for (int i = 0; i < truth_count; ++i)
      fprintf(f, "%s\"%s\": %.6f", i ? ", " : "", truth_entries[i].name, truth_entries[i].seconds);
    fprintf(f, "}");
    write_table(f, "user", 0);
    write_table(f, "system", 1);
    fprintf(f, ", \"process\": {\"user\": %.6f, \"system\": %.6f}}\n",
            (double)self.ru_utime.tv_sec + (double)self.ru_utime.tv_usec / 1e6,
            (double)self.ru_stime.tv_sec + (double)self.ru_stime.tv_usec / 1e6);
    fclose(f);
  }
  printf("cpu_split_target done\n");
  return 0;
}
