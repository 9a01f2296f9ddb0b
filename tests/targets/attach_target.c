/* A long-running process for collect -P, which measures itself while it
 * runs and checks its own view of the process when told to stop.
 *
 * Three workers loop over hot_a (30 ms of CPU) and hot_b (10 ms); every
 * half second the main thread starts a short-lived thread that spends
 * 0.2 s of CPU in hot_c, and joins it. Each function's CPU time
 * (CLOCK_THREAD_CPUTIME_ID around its work) is summed and written, with
 * every 100 ms tick of the main thread, to LUMEN_TEST_TRUTH (replaced
 * whole by a rename):  {"functions": {"hot_a": s, "hot_b": s, "hot_c": s}}
 *
 * The main thread sleeps in 100 ms nanosleeps, each checked: none may end
 * early or with EINTR. At start it installs a SIGUSR1 handler and a
 * SIGSEGV one (as a JVM does: it takes faults on purpose), blocks SIGUSR2, and notes every signal's disposition and its descriptors; when
 * DIR/stop appears it checks that all are as it left them and exits 3, or
 * prints what differs and exits 1. DIR/ready holds its pid once the workers run.
 *
 * Given LIBRARY (burn_library), once DIR/load appears the main thread
 * dlopens it and spends 50 ms of CPU in its burn_in_library at each tick,
 * written as "in_library"; and after each burn a line is appended to
 * DIR/in_library: its CLOCK_MONOTONIC time and "in_library" then, both in
 * nanoseconds (so that a window of time can be given its share).
 *
 * Each time DIR/go appears, the main thread removes it and makes one round
 * of traced calls: allocate_round (1000 blocks of 777 bytes freed again, 7
 * of 999 kept, and, the first time, the 50 blocks of 4321 bytes allocated
 * at start freed), lock_round (300 pthread_mutex_lock), write_round (40
 * writes of 512 bytes to DIR/written, opened at start). What the round did
 * is written to DIR/round.json, then DIR/done is created.
 *
 * Once DIR/wait appears, a thread is started that waits on a condition
 * variable until the stop (DIR/waiting then exists), or until DIR/wake
 * appears: the main thread then ends the wait, joins the thread, removes
 * DIR/wake and creates DIR/woken.
 *
 * usage: attach_target DIR [LIBRARY] */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "truth.h"

static _Atomic long long spent_ns[4]; /* hot_a, hot_b, hot_c, in_library */
static atomic_int stopping;

static long long thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void spend(int which, double seconds) {
  const long long before = thread_cpu_ns();
  burn_cpu(seconds);
  atomic_fetch_add(&spent_ns[which], thread_cpu_ns() - before);
}

__attribute__((noinline)) void hot_a(void) { spend(0, 0.03); }
__attribute__((noinline)) void hot_b(void) { spend(1, 0.01); }
__attribute__((noinline)) void hot_c(void) { spend(2, 0.2); }

static void* worker(void* unused) {
  (void)unused;
  while (!atomic_load(&stopping)) {
    hot_a();
    hot_b();
  }
  return NULL;
}

static void* late_thread(void* unused) {
  (void)unused;
  hot_c();
  return NULL;
}

static void note_library_time(const char* dir) {
  char path[4096];
  snprintf(path, sizeof path, "%s/in_library", dir);
  FILE* f = fopen(path, "a");
  if (f == NULL) return;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  fprintf(f, "%lld %lld\n", now.tv_sec * 1000000000LL + now.tv_nsec, atomic_load(&spent_ns[3]));
  fclose(f);
}

static void write_truth(void) {
  const char* path = getenv("LUMEN_TEST_TRUTH");
  if (path == NULL) return;
  char temporary[4096];
  snprintf(temporary, sizeof temporary, "%s.tmp", path);
  FILE* f = fopen(temporary, "w");
  if (f == NULL) return;
  fprintf(f, "{\"functions\": {\"hot_a\": %.6f, \"hot_b\": %.6f, \"hot_c\": %.6f, \"in_library\": %.6f}}\n",
          atomic_load(&spent_ns[0]) / 1e9, atomic_load(&spent_ns[1]) / 1e9, atomic_load(&spent_ns[2]) / 1e9,
          atomic_load(&spent_ns[3]) / 1e9);
  fclose(f);
  rename(temporary, path);
}

static void on_usr1(int signal) { (void)signal; }
static void on_segv(int signal, siginfo_t* info, void* context) {
  (void)signal, (void)info, (void)context;
  _exit(70);  /* never taken: the program makes no fault */
}

enum { kStartBlocks = 50, kRoundBlocks = 1000, kKeptBlocks = 7, kLocks = 300, kWrites = 40 };
static void* start_blocks[kStartBlocks];
static void* kept_blocks[kKeptBlocks];
static void* volatile round_blocks[kRoundBlocks];
static pthread_mutex_t round_mutex = PTHREAD_MUTEX_INITIALIZER;
static volatile int locked_rounds;

static void* touched(void* block) {
  if (block != NULL) *(volatile char*)block = 1;
  return block;
}

__attribute__((noinline)) void allocate_round(void) {
  for (int i = 0; i < kRoundBlocks; ++i) round_blocks[i] = touched(malloc(777));
  for (int i = 0; i < kRoundBlocks; ++i) free(round_blocks[i]);
  for (int i = 0; i < kKeptBlocks; ++i) kept_blocks[i] = touched(malloc(999));
  for (int i = 0; i < kStartBlocks; ++i)
    if (start_blocks[i] != NULL) free(start_blocks[i]), start_blocks[i] = NULL;
}

__attribute__((noinline)) void lock_round(void) {
  for (int i = 0; i < kLocks; ++i) {
    pthread_mutex_lock(&round_mutex);
    ++locked_rounds;
    pthread_mutex_unlock(&round_mutex);
  }
}

__attribute__((noinline)) int write_round(int fd) {
  static char block[512];
  int written = 0;
  for (int i = 0; i < kWrites; ++i) written += write(fd, block, sizeof block) == (ssize_t)sizeof block;
  return written;
}

static pthread_mutex_t wait_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wait_cond = PTHREAD_COND_INITIALIZER;
static int wait_over;

static void* waiter(void* dir) {
  char path[4200];
  snprintf(path, sizeof path, "%s/waiting", (const char*)dir);
  pthread_mutex_lock(&wait_mutex);
  FILE* f = fopen(path, "w");
  if (f != NULL) fclose(f);
  while (!wait_over) pthread_cond_wait(&wait_cond, &wait_mutex);
  pthread_mutex_unlock(&wait_mutex);
  return NULL;
}

static void end_the_wait(pthread_t waiting_thread) {
  pthread_mutex_lock(&wait_mutex);
  wait_over = 1;
  pthread_cond_signal(&wait_cond);
  pthread_mutex_unlock(&wait_mutex);
  pthread_join(waiting_thread, NULL);
}

static void traced_round(const char* dir, int fd) {
  const int first = start_blocks[0] != NULL, locks_before = locked_rounds;
  allocate_round();
  lock_round();
  const int writes = write_round(fd);
  char path[4096], temporary[4200];
  snprintf(path, sizeof path, "%s/round.json", dir);
  snprintf(temporary, sizeof temporary, "%s.tmp", path);
  FILE* f = fopen(temporary, "w");
  if (f == NULL) return;
  fprintf(f,
          "{\"allocations\": %d, \"allocated_bytes\": %d, \"kept\": %d, \"kept_bytes\": %d, "
          "\"freed_from_before\": %d, \"locks\": %d, \"writes\": %d, \"written_bytes\": %d}\n",
          kRoundBlocks + kKeptBlocks, kRoundBlocks * 777 + kKeptBlocks * 999, kKeptBlocks, kKeptBlocks * 999,
          first ? kStartBlocks : 0, locked_rounds - locks_before, writes, writes * 512);
  fclose(f);
  rename(temporary, path);
  snprintf(path, sizeof path, "%s/done", dir);
  f = fopen(path, "w");
  if (f != NULL) fclose(f);
}

static void list_descriptors(char* out, size_t size) {
  out[0] = '\0';
  DIR* d = opendir("/proc/self/fd");
  if (d == NULL) return;
  const int own = dirfd(d);
  for (struct dirent* e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.' || atoi(e->d_name) == own) continue;
    char link[512], target[256] = "";
    snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
    const ssize_t n = readlink(link, target, sizeof target - 1);
    if (n > 0) target[n] = '\0';
    const size_t used = strlen(out);
    snprintf(out + used, size - used, "%s->%s ", e->d_name, target);
  }
  closedir(d);
}

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) return 2;
  char path[4096], load[4096], go[4096];
  snprintf(load, sizeof load, "%s/load", argv[1]);
  snprintf(go, sizeof go, "%s/go", argv[1]);
  snprintf(path, sizeof path, "%s/written", argv[1]);
  const int written = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  for (int i = 0; i < kStartBlocks; ++i) start_blocks[i] = touched(malloc(4321));
  int waiting = 0;
  char wait[4096];
  snprintf(wait, sizeof wait, "%s/wait", argv[1]);
  char wake[4096], woken_path[4096];
  snprintf(wake, sizeof wake, "%s/wake", argv[1]);
  snprintf(woken_path, sizeof woken_path, "%s/woken", argv[1]);
  pthread_t waiting_thread;
  double (*burn_in_library)(double) = NULL;
  struct sigaction usr1 = {0};
  usr1.sa_handler = on_usr1;
  sigaction(SIGUSR1, &usr1, NULL);
  struct sigaction segv = {0};
  segv.sa_sigaction = on_segv;
  segv.sa_flags = SA_SIGINFO;
  sigaction(SIGSEGV, &segv, NULL);
  sigset_t blocked;
  sigemptyset(&blocked);
  sigaddset(&blocked, SIGUSR2);
  pthread_sigmask(SIG_BLOCK, &blocked, NULL);
  sigset_t mask_at_start;
  pthread_sigmask(SIG_BLOCK, NULL, &mask_at_start);
  static struct sigaction dispositions_at_start[65];
  for (int s = 1; s < 65; ++s) sigaction(s, NULL, &dispositions_at_start[s]);
  static char descriptors_at_start[8192], descriptors_at_end[8192];
  list_descriptors(descriptors_at_start, sizeof descriptors_at_start);

  pthread_t workers[3];
  for (int i = 0; i < 3; ++i) pthread_create(&workers[i], NULL, worker, NULL);
  snprintf(path, sizeof path, "%s/ready", argv[1]);
  FILE* ready = fopen(path, "w");
  if (ready != NULL) fprintf(ready, "%d\n", (int)getpid()), fclose(ready);

  int cut_short = 0;
  snprintf(path, sizeof path, "%s/stop", argv[1]);
  for (int tick = 1; access(path, F_OK) != 0; ++tick) {
    struct timespec want = {0, 100000000}, before, after;
    clock_gettime(CLOCK_MONOTONIC, &before);
    if (nanosleep(&want, NULL) != 0) ++cut_short;
    clock_gettime(CLOCK_MONOTONIC, &after);
    const long long slept = (after.tv_sec - before.tv_sec) * 1000000000LL + (after.tv_nsec - before.tv_nsec);
    if (slept < 100000000LL) ++cut_short;
    if (argc == 3 && burn_in_library == NULL && access(load, F_OK) == 0) {
      void* library = dlopen(argv[2], RTLD_NOW);
      if (library != NULL) burn_in_library = (double (*)(double))dlsym(library, "burn_in_library");
    }
    if (burn_in_library != NULL) {
      const long long before_ns = thread_cpu_ns();
      burn_in_library(0.05);
      atomic_fetch_add(&spent_ns[3], thread_cpu_ns() - before_ns);
      note_library_time(argv[1]);
    }
    if (access(go, F_OK) == 0) {
      unlink(go);
      traced_round(argv[1], written);
    }
    if (!waiting && access(wait, F_OK) == 0) waiting = pthread_create(&waiting_thread, NULL, waiter, argv[1]) == 0;
    if (waiting && access(wake, F_OK) == 0) {
      end_the_wait(waiting_thread);
      waiting = 0;
      unlink(wake);
      FILE* woken = fopen(woken_path, "w");
      if (woken != NULL) fclose(woken);
    }
    if (tick % 5 == 0) {
      pthread_t late;
      if (pthread_create(&late, NULL, late_thread, NULL) == 0) pthread_join(late, NULL);
    }
    write_truth();
  }
  atomic_store(&stopping, 1);
  if (waiting) end_the_wait(waiting_thread);
  for (int i = 0; i < kKeptBlocks; ++i) free(kept_blocks[i]);  /* the last round's; free(NULL) if none */
  for (int i = 0; i < kStartBlocks; ++i) free(start_blocks[i]);
  for (int i = 0; i < 3; ++i) pthread_join(workers[i], NULL);
  write_truth();

  int harmed = 0;
  for (int s = 1; s < 65; ++s) {
    struct sigaction now;
    sigaction(s, NULL, &now);
    if (now.sa_handler != dispositions_at_start[s].sa_handler || now.sa_flags != dispositions_at_start[s].sa_flags)
      harmed = fprintf(stderr, "attach_target: the disposition of signal %d changed\n", s);
  }
  sigset_t mask_at_end;
  pthread_sigmask(SIG_BLOCK, NULL, &mask_at_end);
  for (int s = 1; s < 65; ++s)
    if (sigismember(&mask_at_start, s) != sigismember(&mask_at_end, s))
      harmed = fprintf(stderr, "attach_target: its signal mask changed for signal %d\n", s);
  list_descriptors(descriptors_at_end, sizeof descriptors_at_end);
  if (strcmp(descriptors_at_start, descriptors_at_end) != 0)
    harmed = fprintf(stderr, "attach_target: its descriptors were [%s], are [%s]\n", descriptors_at_start,
                     descriptors_at_end);
  if (cut_short != 0) harmed = fprintf(stderr, "attach_target: %d of its sleeps were cut short\n", cut_short);
  return harmed ? 1 : 3;
}
