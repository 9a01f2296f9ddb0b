/* A program that does what could break collection, and measures itself.
 * Usage: hostile_target MODE [ARG]
 *   close_all     closes every descriptor above stderr at start (a loop of
 *                 close() and closefrom), then works and opens files
 *   threads N     creates and ends N short threads, 64 at a time
 *   forks N       forks N children, 16 at a time, each working briefly
 *   timers        deletes every timer id it can guess, then its own SIGPROF
 *                 handler and a SIGPROF POSIX timer, and setitimer(ITIMER_PROF)
 *                 switched off, while it works
 *   exit CODE     works, then _exit(CODE) (no exit handlers run)
 *   kill          works, then SIGKILL to itself
 *   linker_lock N one thread holds the dynamic linker's lock most of the
 *                 time (a dl_iterate_phdr callback that works) while N waves
 *                 of fresh threads allocate from 256 call sites each
 * Prints only what holds with or without collect. */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "truth.h"

#define NOINLINE __attribute__((noinline))

NOINLINE void hostile_work(double s) { double t0 = thread_cpu_seconds(); burn_cpu(s); truth_add("hostile_work", thread_cpu_seconds() - t0); }

static void* short_thread(void* arg) {
  volatile double x = burn_cpu(0.0002);
  (void)x, (void)arg;
  return NULL;
}

/* 256 distinct call sites of malloc, so every fresh thread's unwinder has
 * to look up unwind tables again (its caches know none of them yet). */
#define SITE(n) \
  NOINLINE static void* site_##n(void) { return malloc(16 + (n)); }
#define SITES4(n) SITE(n##0) SITE(n##1) SITE(n##2) SITE(n##3)
#define SITES16(n) SITES4(n##0) SITES4(n##1) SITES4(n##2) SITES4(n##3)
#define SITES64(n) SITES16(n##0) SITES16(n##1) SITES16(n##2) SITES16(n##3)
SITES64(10) SITES64(11) SITES64(12) SITES64(13)
#define ADDR(n) site_##n,
#define ADDRS4(n) ADDR(n##0) ADDR(n##1) ADDR(n##2) ADDR(n##3)
#define ADDRS16(n) ADDRS4(n##0) ADDRS4(n##1) ADDRS4(n##2) ADDRS4(n##3)
#define ADDRS64(n) ADDRS16(n##0) ADDRS16(n##1) ADDRS16(n##2) ADDRS16(n##3)
static void* (*const sites[256])(void) = {ADDRS64(10) ADDRS64(11) ADDRS64(12) ADDRS64(13)};

static volatile int allocating_done;

static int work_under_linker_lock(struct dl_phdr_info* info, size_t size, void* data) {
  (void)info, (void)size, (void)data;
  volatile double x = burn_cpu(0.0003);
  (void)x;
  return 0;
}

static void* hold_linker_lock(void* arg) {
  (void)arg;
  while (!allocating_done) dl_iterate_phdr(work_under_linker_lock, NULL);
  return NULL;
}

static void* allocate_from_every_site(void* arg) {
  (void)arg;
  for (int i = 0; i < 256; ++i) free(sites[i]());
  return NULL;
}

static int linker_lock(int waves) {
  pthread_t holder;
  if (pthread_create(&holder, NULL, hold_linker_lock, NULL) != 0) return 1;
  for (int wave = 0; wave < waves; ++wave) {
    pthread_t threads[4];
    for (int i = 0; i < 4; ++i)
      if (pthread_create(&threads[i], NULL, allocate_from_every_site, NULL) != 0) return 1;
    for (int i = 0; i < 4; ++i) pthread_join(threads[i], NULL);
  }
  allocating_done = 1;
  pthread_join(holder, NULL);
  printf("linker_lock: %d waves of 4 threads allocated from 256 sites\n", waves);
  return 0;
}

static volatile sig_atomic_t own_sigprof;
static void on_own_sigprof(int signal) { (void)signal; ++own_sigprof; }

static int close_all(void) {
  const long max = sysconf(_SC_OPEN_MAX);
  for (long fd = 3; fd < max && fd < 65536; ++fd) close((int)fd);
  closefrom(3);
  const int fd = open("/dev/null", O_RDONLY);
  printf("first descriptor after closing all: %d\n", fd);
  close(fd);
  hostile_work(0.3);
  return 0;
}

static int many_threads(int n) {
  int created = 0;
  while (created < n) {
    pthread_t threads[64];
    int wave = 0;
    for (; wave < 64 && created < n; ++wave, ++created)
      if (pthread_create(&threads[wave], NULL, short_thread, NULL) != 0) return 1;
    for (int i = 0; i < wave; ++i) pthread_join(threads[i], NULL);
  }
  hostile_work(0.3);
  printf("threads: %d created and joined\n", created);
  return 0;
}

static int fork_storm(int n) {
  int exited_zero = 0, forked = 0;
  while (forked < n) {
    pid_t children[16];
    int wave = 0;
    for (; wave < 16 && forked < n; ++wave, ++forked) {
      children[wave] = fork();
      if (children[wave] == 0) {
        volatile double x = burn_cpu(0.002);
        (void)x;
        _exit(0);
      }
    }
    for (int i = 0; i < wave; ++i) {
      int status = 0;
      if (waitpid(children[i], &status, 0) == children[i] && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        ++exited_zero;
    }
  }
  hostile_work(0.3);
  printf("forks: %d of %d children exited 0\n", exited_zero, n);
  return 0;
}

static int own_timers(void) {
  /* Timers it never created: without collect there are none to delete. */
  int deleted = 0;
  for (intptr_t id = 0; id < 256; ++id) deleted += timer_delete((timer_t)id) == 0;
  printf("timers deleted that it never created: %d\n", deleted);
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_own_sigprof;
  action.sa_flags = SA_RESTART;
  sigaction(SIGPROF, &action, NULL);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, NULL);
  struct sigevent event;
  memset(&event, 0, sizeof event);
  event.sigev_notify = SIGEV_SIGNAL;
  event.sigev_signo = SIGPROF;
  timer_t timer;
  if (timer_create(CLOCK_MONOTONIC, &event, &timer) != 0) return 1;
  struct itimerspec every_2ms = {{0, 2000000}, {0, 2000000}};
  timer_settime(timer, 0, &every_2ms, NULL);
  hostile_work(0.5);
  timer_delete(timer);
  printf("own SIGPROF timer delivered: %s\n", own_sigprof > 20 ? "yes" : "no");
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  const int arg = argc > 2 ? atoi(argv[2]) : 0;
  int status = 2;
  if (strcmp(mode, "close_all") == 0) status = close_all();
  else if (strcmp(mode, "threads") == 0) status = many_threads(arg);
  else if (strcmp(mode, "forks") == 0) status = fork_storm(arg);
  else if (strcmp(mode, "timers") == 0) status = own_timers();
  else if (strcmp(mode, "linker_lock") == 0) status = linker_lock(arg);
  else if (strcmp(mode, "exit") == 0 || strcmp(mode, "kill") == 0) {
    hostile_work(0.3);
    truth_write();
    fflush(stdout);
    if (strcmp(mode, "kill") == 0) raise(SIGKILL);
    _exit(arg);
  } else {
    fprintf(stderr, "usage: hostile_target close_all|threads N|forks N|timers|exit CODE|kill|linker_lock N\n");
  }
  truth_write();
  return status;
}
