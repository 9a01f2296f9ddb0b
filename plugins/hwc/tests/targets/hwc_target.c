/* Target for the hwc tests: does work whose counter truth it measures
 * itself, and writes it as JSON to the file named by LUMEN_TEST_TRUTH.
 *
 *   hwc_target faults PAGES
 *       touch_fresh_pages() writes one byte to each of PAGES fresh anonymous
 *       pages; truth: the thread's minor- and major-fault deltas around it
 *       (getrusage ru_minflt, ru_majflt).
 *   hwc_target burn MILLISECONDS [THREADS]
 *       burn_cpu() computes on each of THREADS threads (default 1: the main
 *       thread alone) until that thread's CPU clock advanced by MILLISECONDS;
 *       truth: the sum of the CPU times the threads measured around it, and
 *       the program's threads' CPU time from main's entry to the truth's
 *       writing (program_cpu_since_main_seconds: the main thread's since
 *       main's entry, each burning thread's whole life; not the collector's
 *       own threads, which the process's CPU time would include).
 *   hwc_target switches COUNT
 *       sleep_often() sleeps 200 us COUNT times (each sleep leaves the CPU);
 *       truth: the thread's context switches around it, voluntary and
 *       involuntary (getrusage ru_nvcsw + ru_nivcsw), and how many sleeps a
 *       signal cut short (none, unless something signals the sleeping thread).
 *   hwc_target migrate COUNT
 *       migrate_often() pins the thread to each CPU it may use in turn, COUNT
 *       times, computing a little on each; pinned, only its own affinity
 *       moves it. truth: how many times the CPU it found itself on
 *       (sched_getcpu, read before and after each move) changed, and the
 *       CPUs it may use (fewer than 2: it cannot move).
 *   hwc_target fork PARENT_MS CHILD_MS
 *       forks a child that burns CHILD_MS in forked_child_work() (through
 *       burn_cpu) and exits; then the parent burns PARENT_MS in burn_cpu();
 *       truth: each one's measured CPU time (the child's through a pipe). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void write_truth(const char* json) {
  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return;
  FILE* out = fopen(path, "w");
  if (out == NULL) return;
  fputs(json, out);
  fclose(out);
}

static struct rusage thread_usage(void) {
  struct rusage usage;
  getrusage(RUSAGE_THREAD, &usage);
  return usage;
}

static double cpu_seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double thread_cpu_seconds(void) { return cpu_seconds(CLOCK_THREAD_CPUTIME_ID); }

static long g_major_faults;

/* The thread's minor faults while it touched the pages; g_major_faults its
 * major ones. */
__attribute__((noinline)) static long touch_fresh_pages(long pages) {
  const long page = sysconf(_SC_PAGESIZE);
  char* memory = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (memory == MAP_FAILED) return -1;
  const struct rusage before = thread_usage();
  for (long i = 0; i < pages; ++i) ((volatile char*)memory)[i * page] = (char)i;
  const struct rusage after = thread_usage();
  munmap(memory, (size_t)(pages * page));
  g_major_faults = after.ru_majflt - before.ru_majflt;
  return after.ru_minflt - before.ru_minflt;
}

__attribute__((noinline)) static double burn_cpu(double seconds) {
  const double start = thread_cpu_seconds();
  volatile double x = 1.0;
  double now = start;
  while (now - start < seconds) {
    for (int i = 0; i < 10000; ++i) x = x * 1.0000001 + 1e-9;
    now = thread_cpu_seconds();
  }
  return now - start;
}

static long thread_context_switches(void) {
  struct rusage usage;
  getrusage(RUSAGE_THREAD, &usage);
  return usage.ru_nvcsw + usage.ru_nivcsw;
}

static long g_interrupted_sleeps;

__attribute__((noinline)) static long sleep_often(long count) {
  const struct timespec pause = {0, 200000};
  const long before = thread_context_switches();
  for (long i = 0; i < count; ++i)
    if (nanosleep(&pause, NULL) != 0) ++g_interrupted_sleeps;
  return thread_context_switches() - before;
}

static int report_switches(long sleeps) {
  char json[200];
  const long switches = sleep_often(sleeps);
  snprintf(json, sizeof json,
           "{\"function\": \"sleep_often\", \"sleeps\": %ld, \"context_switches\": %ld, \"interrupted\": %ld}\n",
           sleeps, switches, g_interrupted_sleeps);
  write_truth(json);
  return 0;
}

static volatile double g_sink;

/* Pins the thread to each CPU of `allowed` in turn, `count` times; returns
 * how many times the CPU it runs on changed, as sched_getcpu saw it. */
__attribute__((noinline)) static long migrate_often(long count, const cpu_set_t* allowed) {
  int cpus[CPU_SETSIZE];
  int n = 0;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, allowed)) cpus[n++] = c;
  long moves = 0;
  int on = sched_getcpu();
  for (long i = 0; i < count; ++i) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpus[i % n], &one);
    if (sched_setaffinity(0, sizeof one, &one) != 0) return -1;
    for (int k = 0; k < 1000; ++k) g_sink = g_sink * 1.0000001 + 1e-9;
    const int now = sched_getcpu();
    if (now != on) ++moves;
    on = now;
  }
  sched_setaffinity(0, sizeof *allowed, allowed);
  return moves;
}

static int report_migrations(long count) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return 1;
  const long moves = CPU_COUNT(&allowed) < 2 ? 0 : migrate_often(count, &allowed);
  char json[200];
  snprintf(json, sizeof json, "{\"function\": \"migrate_often\", \"moves\": %ld, \"cpus\": %d}\n", moves,
           CPU_COUNT(&allowed));
  write_truth(json);
  return moves < 0;
}

__attribute__((noinline)) static double forked_child_work(double seconds) { return burn_cpu(seconds) + 0.0; }

static double g_burn_seconds;

struct burn_result {
  double burned;    /* in burn_cpu */
  double lifetime;  /* the thread's CPU time at its end */
};

static void* burn_thread(void* result) {
  ((struct burn_result*)result)->burned = burn_cpu(g_burn_seconds);
  ((struct burn_result*)result)->lifetime = thread_cpu_seconds();
  return NULL;
}

int main(int argc, char** argv) {
  const double main_cpu_at_entry = thread_cpu_seconds();
  char json[400];
  if (argc == 3 && strcmp(argv[1], "faults") == 0) {
    const long pages = atol(argv[2]);
    const long faults = touch_fresh_pages(pages);
    snprintf(json, sizeof json,
             "{\"function\": \"touch_fresh_pages\", \"pages\": %ld, \"minor_faults\": %ld, \"major_faults\": %ld}\n",
             pages, faults, g_major_faults);
    write_truth(json);
    return faults < 0;
  }
  if ((argc == 3 || argc == 4) && strcmp(argv[1], "burn") == 0) {
    g_burn_seconds = atof(argv[2]) / 1000.0;
    const int threads = argc == 4 ? atoi(argv[3]) : 1;
    double seconds = 0;
    double other_threads_cpu = 0;
    if (threads <= 1) {
      seconds = burn_cpu(g_burn_seconds);
    } else {
      pthread_t ids[16];
      struct burn_result spent[16];
      if (threads > 16) return 2;
      for (int i = 0; i < threads; ++i) pthread_create(&ids[i], NULL, burn_thread, &spent[i]);
      for (int i = 0; i < threads; ++i) {
        pthread_join(ids[i], NULL);
        seconds += spent[i].burned;
        other_threads_cpu += spent[i].lifetime;
      }
    }
    snprintf(json, sizeof json,
             "{\"function\": \"burn_cpu\", \"cpu_seconds\": %.9f, \"threads\": %d, "
             "\"program_cpu_since_main_seconds\": %.9f}\n",
             seconds, threads, thread_cpu_seconds() - main_cpu_at_entry + other_threads_cpu);
    write_truth(json);
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "switches") == 0) return report_switches(atol(argv[2]));
  if (argc == 3 && strcmp(argv[1], "migrate") == 0) return report_migrations(atol(argv[2]));
  if (argc == 4 && strcmp(argv[1], "fork") == 0) {
    int channel[2];
    if (pipe(channel) != 0) return 1;
    const pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
      const double spent = forked_child_work(atof(argv[3]) / 1000.0);
      _exit(write(channel[1], &spent, sizeof spent) == (ssize_t)sizeof spent ? 0 : 1);
    }
    double child_seconds = -1;
    int status = 0;
    if (read(channel[0], &child_seconds, sizeof child_seconds) != (ssize_t)sizeof child_seconds) return 1;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
    const double parent_seconds = burn_cpu(atof(argv[2]) / 1000.0);
    snprintf(json, sizeof json, "{\"parent_cpu_seconds\": %.9f, \"child_cpu_seconds\": %.9f}\n", parent_seconds,
             child_seconds);
    write_truth(json);
    return 0;
  }
  fprintf(stderr,
          "usage: hwc_target faults PAGES | burn MILLISECONDS [THREADS] | switches COUNT | migrate COUNT | "
          "fork PARENT_MS CHILD_MS\n");
  return 2;
}
