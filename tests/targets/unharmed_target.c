/* A program that observes what collection could change behind its back,
 * and prints only what it observes, so that a run under collect can be
 * compared line by line with a run without it.
 * Usage: unharmed_target MODE [ARG]
 *   sleeps        sleep, nanosleep, usleep, poll, select, epoll_wait,
 *                 sigtimedwait and a condition-variable timed wait, one
 *                 after the other: "call rc errno milliseconds" each
 *   fds           the first open()'s descriptor, and under a soft limit of
 *                 at most 4096 what F_DUPFD at 8 below the limit gives, how
 *                 many more open() succeed before EMFILE, and in how many
 *                 rounds of the same over a second (each beside a new
 *                 thread that allocates and writes) another number did
 *   mask          blocks every signal and reads the mask back (in this
 *                 thread and in a thread created under it), then unblocks
 *                 every signal and reads it back
 *   fork_alloc N  3 threads allocate without pause while the main thread
 *                 forks N children, 8 at a time, each of which allocates
 *   fork_timers N a thread creates and deletes a timer without pause while
 *                 the main thread forks up to N children, one at a time,
 *                 each of which exits at once; the first child not done
 *                 within 10 s is killed, counted as hung, and ends the forks
 *   fork_dlopen N a thread opens and closes libm with dlopen without pause
 *                 while the main thread forks N children one at a time,
 *                 each of which opens libm too and allocates; a child not
 *                 done within 10 s is killed and counted as hung
 *   close_range   works, closes every descriptor above stderr with a raw
 *                 close_range system call (past any interposer), then
 *                 allocates ARG blocks and works again
 *   spin N        N threads burn 0.3 s of CPU each
 *   main_leaves   main leaves through pthread_exit; a worker ends 0.3 s
 *                 later by returning, and an atexit handler reports it
 *   exit_call N   works, then ends by the exit system call with status N
 *                 (not exit_group, so neither atexit nor stdio runs)
 *   strict_mode   works, enters seccomp's strict mode (read, write, exit
 *                 and sigreturn only), works and writes there, and ends by
 *                 the exit system call
 *   strict_syscall as strict_mode, entered by the seccomp system call made
 *                 through syscall(2)
 *   filter_every_thread  starts a worker, then puts every thread in a
 *                 seccomp filter (SECCOMP_FILTER_FLAG_TSYNC) that kills the
 *                 process at any system call but those reading, writing,
 *                 waiting on a futex and ending need; both work on, the
 *                 worker is joined, and the program ends by exit()
 *   address_limit caps its address space at 300 MiB (RLIMIT_AS), as
 *                 programs do, then allocates 50,000 blocks of 1 KiB on the
 *                 main thread and 1,000 on a thread, and says how many it got
 *   traces        its environment but the preload (and the test's
 *                 LUMEN_TEST_TRUTH, which only runs under collect get), one
 *                 variable a line, and
 *                 the ids of the timers it creates (two, one deleted, then
 *                 two more around threads that start and end) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "truth.h"

#define NOINLINE __attribute__((noinline))

static double monotonic_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

#define WAIT_MS 170
static const struct timespec kWait = {0, WAIT_MS * 1000000L};

static void report(const char* call, int rc, int error, double started) {
  printf("%s %d %d %.0f\n", call, rc, error, monotonic_ms() - started);
  fflush(stdout);
}

#define TIMED(name, expression)          \
  do {                                   \
    errno = 0;                           \
    const double started = monotonic_ms(); \
    const int rc = (int)(expression);    \
    report(name, rc, errno, started);    \
  } while (0)

static int sleeps(void) {
  TIMED("sleep", sleep(1));
  TIMED("nanosleep", nanosleep(&kWait, NULL));
  TIMED("usleep", usleep(WAIT_MS * 1000));
  TIMED("poll", poll(NULL, 0, WAIT_MS));
  struct timeval tv = {0, WAIT_MS * 1000};
  TIMED("select", select(0, NULL, NULL, NULL, &tv));
  const int epoll = epoll_create1(EPOLL_CLOEXEC);
  struct epoll_event event;
  TIMED("epoll_wait", epoll_wait(epoll, &event, 1, WAIT_MS));
  close(epoll);
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  TIMED("sigtimedwait", sigtimedwait(&usr1, NULL, &kWait));
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
  pthread_mutex_lock(&mutex);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_nsec += WAIT_MS * 1000000L;
  if (until.tv_nsec >= 1000000000L) until.tv_nsec -= 1000000000L, until.tv_sec += 1;
  TIMED("pthread_cond_timedwait", pthread_cond_timedwait(&cond, &mutex, &until));
  pthread_mutex_unlock(&mutex);
  return 0;
}

/* A thread that gives the collector work while the program opens: its
 * records need fresh blocks of the data files. */
static void* volatile g_last_block; /* kept from the optimiser */
static void* allocate_and_write(void* arg) {
  (void)arg;
  for (int i = 0; i < 64; ++i) {
    g_last_block = malloc(100 + (size_t)i);
    free(g_last_block);
  }
  return NULL;
}

static int fds(void) {
  const int first = open("/dev/null", O_RDONLY);
  printf("first open: %d\n", first);
  struct rlimit limit;
  getrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_cur <= 4096) {
    const int high = (int)limit.rlim_cur - 8;
    const int duplicate = fcntl(first, F_DUPFD, high);
    printf("F_DUPFD at %d: %d\n", high, duplicate);
    if (duplicate >= 0) close(duplicate);
    int opened = 0, last = first;
    for (int fd; (fd = open("/dev/null", O_RDONLY)) >= 0; ++opened) last = fd;
    printf("opened before EMFILE: %d, last %d, errno %s\n", opened, last, errno == EMFILE ? "EMFILE" : "other");
    /* Again and again for a second: a descriptor the collector held for a
     * moment, even one opened and closed at once, would show as a round
     * that met EMFILE early or got other numbers. */
    int differed = 0;
    for (const double until = monotonic_ms() + 1000; monotonic_ms() < until;) {
      for (int fd = first + 1; fd <= last; ++fd) close(fd);
      pthread_t helper;
      const int started = pthread_create(&helper, NULL, allocate_and_write, NULL) == 0;
      int again = 0, again_last = first;
      for (int fd; (fd = open("/dev/null", O_RDONLY)) >= 0; ++again) again_last = fd;
      differed += again != opened || again_last != last;
      if (started) pthread_join(helper, NULL);
    }
    printf("rounds that met EMFILE elsewhere: %d\n", differed);
  }
  return 0;
}

static void print_mask(const char* when) {
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, NULL, &mask);
  printf("%s:", when);
  for (int s = 1; s < NSIG; ++s)
    if (sigismember(&mask, s) == 1) printf(" %d", s);
  printf("\n");
}

static void* print_mask_in_thread(void* arg) {
  (void)arg;
  print_mask("thread created under it reads");
  return NULL;
}

static int mask(void) {
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_SETMASK, &all, NULL);
  print_mask("after blocking every signal");
  pthread_t thread;
  pthread_create(&thread, NULL, print_mask_in_thread, NULL);
  pthread_join(thread, NULL);
  sigset_t none, old;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, &old);
  printf("old mask returned when unblocking:");
  for (int s = 1; s < NSIG; ++s)
    if (sigismember(&old, s) == 1) printf(" %d", s);
  printf("\n");
  print_mask("after unblocking every signal");
  /* One set for both the new mask and the old one, as POSIX allows. */
  sigset_t same;
  sigfillset(&same);
  sigprocmask(SIG_BLOCK, &same, &same);
  print_mask("after blocking every signal through one set");
  sigfillset(&same);
  sigprocmask(SIG_UNBLOCK, &same, &same);
  print_mask("after unblocking every signal through one set");
  return 0;
}

static volatile int allocating = 1;

NOINLINE static void* allocate_without_pause(void* arg) {
  (void)arg;
  while (allocating) {
    void* volatile blocks[16];
    for (int i = 0; i < 16; ++i) blocks[i] = malloc(32 + 16 * (size_t)i);
    for (int i = 0; i < 16; ++i) free(blocks[i]);
  }
  return NULL;
}

NOINLINE static int child_allocates(void) {
  for (int i = 0; i < 100; ++i) {
    void* volatile block = malloc(64 + (size_t)i);
    free(block);
  }
  return 0;
}

static int fork_alloc(int n) {
  pthread_t threads[3];
  for (int i = 0; i < 3; ++i) pthread_create(&threads[i], NULL, allocate_without_pause, NULL);
  int forked = 0, exited_zero = 0;
  while (forked < n) {
    pid_t children[8];
    int wave = 0;
    for (; wave < 8 && forked < n; ++wave, ++forked) {
      children[wave] = fork();
      if (children[wave] == 0) _exit(child_allocates());
    }
    for (int i = 0; i < wave; ++i) {
      int status = 0;
      if (waitpid(children[i], &status, 0) == children[i] && WIFEXITED(status) && WEXITSTATUS(status) == 0)
        ++exited_zero;
    }
  }
  allocating = 0;
  for (int i = 0; i < 3; ++i) pthread_join(threads[i], NULL);
  printf("fork_alloc: %d of %d children exited 0\n", exited_zero, n);
  return 0;
}

static volatile int reopening = 1;

static void* reopen_without_pause(void* arg) {
  (void)arg;
  while (reopening) {
    void* handle = dlopen("libm.so.6", RTLD_NOW);
    if (handle != NULL) dlclose(handle);
  }
  return NULL;
}

/* The child's exit status, or -1 when it was still running after 10 s. */
static int wait_or_kill(pid_t child) {
  for (int waited_ms = 0; waited_ms < 10000; ++waited_ms) {
    int status = 0;
    if (waitpid(child, &status, WNOHANG) == child) return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    usleep(1000);
  }
  kill(child, SIGKILL);
  waitpid(child, NULL, 0);
  return -1;
}

static volatile int arming = 1;

static void* arm_without_pause(void* arg) {
  (void)arg;
  struct sigevent none;
  memset(&none, 0, sizeof none);
  none.sigev_notify = SIGEV_NONE;
  while (arming) {
    timer_t id;
    if (timer_create(CLOCK_MONOTONIC, &none, &id) == 0) timer_delete(id);
  }
  return NULL;
}

static int fork_timers(int n) {
  pthread_t armer;
  pthread_create(&armer, NULL, arm_without_pause, NULL);
  int exited_zero = 0, forked = 0, hung = 0;
  for (; forked < n && !hung; ++forked) {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    const int status = child < 0 ? 1 : wait_or_kill(child);
    if (status == 0) ++exited_zero;
    if (status == -1) hung = 1;
  }
  arming = 0;
  pthread_join(armer, NULL);
  printf("fork_timers: %d of %d children exited 0, %d hung\n", exited_zero, forked, hung);
  return 0;
}

static int fork_dlopen(int n) {
  pthread_t reopener;
  pthread_create(&reopener, NULL, reopen_without_pause, NULL);
  int exited_zero = 0, hung = 0;
  for (int i = 0; i < n; ++i) {
    const pid_t child = fork();
    if (child == 0) {
      void* handle = dlopen("libm.so.6", RTLD_NOW);
      _exit(handle != NULL ? child_allocates() : 1);
    }
    const int status = child < 0 ? 1 : wait_or_kill(child);
    if (status == 0) ++exited_zero;
    if (status == -1) ++hung;
  }
  reopening = 0;
  pthread_join(reopener, NULL);
  printf("fork_dlopen: %d of %d children exited 0, %d hung\n", exited_zero, n, hung);
  return 0;
}

NOINLINE static void work_before_close(double s) {
  double t0 = thread_cpu_seconds();
  burn_cpu(s);
  truth_add("work_before_close", thread_cpu_seconds() - t0);
}
NOINLINE static void work_after_close(double s) {
  double t0 = thread_cpu_seconds();
  burn_cpu(s);
  truth_add("work_after_close", thread_cpu_seconds() - t0);
}
NOINLINE static void allocate_after_close(int n) {
  for (int i = 0; i < n; ++i) {
    void* volatile block = malloc(48);  /* volatile: the pair is not optimised away */
    free(block);
  }
}

static int close_range_raw(int allocations) {
  work_before_close(0.3);
  const long rc = syscall(SYS_close_range, 3u, ~0u, 0u);
  allocate_after_close(allocations);
  work_after_close(0.3);
  const int fd = open("/dev/null", O_RDONLY);
  printf("close_range: %ld, first open after it: %d, allocations: %d\n", rc, fd, allocations);
  return 0;
}

NOINLINE static void* spin(void* arg) {
  (void)arg;
  double t0 = thread_cpu_seconds();
  burn_cpu(0.3);
  truth_add("spin", thread_cpu_seconds() - t0);
  return NULL;
}

static int spin_threads(int n) {
  pthread_t threads[64];
  if (n < 1 || n > 64) return 2;
  for (int i = 0; i < n; ++i) pthread_create(&threads[i], NULL, spin, NULL);
  for (int i = 0; i < n; ++i) pthread_join(threads[i], NULL);
  printf("spin: %d threads\n", n);
  return 0;
}

static void report_at_exit(void) {
  printf("atexit handler ran\n");
  fflush(stdout);
}

static void* finish_later(void* arg) {
  (void)arg;
  burn_cpu(0.1);
  usleep(200000);
  printf("worker ends\n");
  return NULL;
}

static int main_leaves(void) {
  atexit(report_at_exit);
  pthread_t worker;
  pthread_create(&worker, NULL, finish_later, NULL);
  printf("main leaves\n");
  pthread_exit(NULL);
}

static int exit_call(int status) {
  burn_cpu(0.1);
  const char text[] = "ends by the exit system call\n";
  if (write(STDOUT_FILENO, text, sizeof text - 1) < 0) return 1;
  syscall(SYS_exit, status);
  return 1;
}

// Enters seccomp's strict mode by prctl or, `by_system_call`, by the
// seccomp system call through syscall(2).
static int strict_mode(int by_system_call) {
  burn_cpu(0.1);
  printf(by_system_call ? "entering strict mode by the system call\n" : "entering strict mode\n");
  fflush(stdout);
  const long entered = by_system_call ? syscall(SYS_seccomp, SECCOMP_SET_MODE_STRICT, 0, NULL)
                                      : prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT);
  if (entered != 0) return 1;
  volatile double sum = 0;
  for (long i = 0; i < 50000000; ++i) sum += (double)i * 0.5;
  const char text[] = "worked in strict mode\n";
  if (write(STDOUT_FILENO, text, sizeof text - 1) < 0) syscall(SYS_exit, 1);
  syscall(SYS_exit, 0);
  return 1;
}

static NOINLINE void* burn_in_filter(void* arg) {
  burn_cpu(0.4);
  return arg;
}

#define ALLOW(call) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_##call, 0, 1), BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

static int filter_every_thread(void) {
  pthread_t worker;
  if (pthread_create(&worker, NULL, burn_in_filter, NULL) != 0) return 1;
  burn_cpu(0.1);
  printf("entering the filter on every thread\n");
  fflush(stdout);
  struct sock_filter rules[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
      ALLOW(read), ALLOW(write), ALLOW(futex), ALLOW(madvise), ALLOW(munmap), ALLOW(rt_sigreturn),
      ALLOW(rt_sigprocmask), ALLOW(clock_gettime), ALLOW(exit), ALLOW(exit_group),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
  };
  struct sock_fprog program = {sizeof rules / sizeof rules[0], rules};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 1;
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &program) != 0) return 1;
  burn_cpu(0.2);
  if (pthread_join(worker, NULL) != 0) return 1;
  printf("worked in the filter\n");
  fflush(stdout);
  exit(0);
}

static NOINLINE void* burn_briefly(void* arg) {
  burn_cpu(0.05);
  return arg;
}

static long new_timer(void) {
  struct sigevent event;
  memset(&event, 0, sizeof event);
  event.sigev_notify = SIGEV_NONE;
  timer_t id;
  return timer_create(CLOCK_MONOTONIC, &event, &id) == 0 ? (long)(intptr_t)id : -1;
}

enum { kMainBlocks = 50000, kThreadBlocks = 1000 };
static void* g_blocks[kMainBlocks];

static void* allocate_on_thread(void* arg) {
  static void* blocks[kThreadBlocks];
  int got = 0;
  for (int i = 0; i < kThreadBlocks; ++i) got += (blocks[i] = malloc(1024)) != NULL;
  for (int i = 0; i < kThreadBlocks; ++i) free(blocks[i]);
  *(int*)arg = got;
  return NULL;
}

static int address_limit(void) {
  const struct rlimit limit = {300ul << 20, 300ul << 20};
  if (setrlimit(RLIMIT_AS, &limit) != 0) return 1;
  int got = 0, thread_got = 0;
  for (int i = 0; i < kMainBlocks; ++i) got += (g_blocks[i] = malloc(1024)) != NULL;
  pthread_t thread;
  if (pthread_create(&thread, NULL, allocate_on_thread, &thread_got) == 0) pthread_join(thread, NULL);
  for (int i = 0; i < kMainBlocks; ++i) free(g_blocks[i]);
  printf("allocated under a 300 MiB address space: %d of %d, on a thread %d of %d\n", got, kMainBlocks, thread_got,
         kThreadBlocks);
  return 0;
}

static int traces(void) {
  extern char** environ;
  for (char** entry = environ; *entry != NULL; ++entry)
    if (strncmp(*entry, "LD_PRELOAD=", 11) != 0 && strncmp(*entry, "LUMEN_TEST_TRUTH=", 17) != 0)
      printf("%s\n", *entry);
  const long first = new_timer(), second = new_timer();
  timer_delete((timer_t)(intptr_t)first);
  pthread_t threads[3];
  for (int i = 0; i < 3; ++i) pthread_create(&threads[i], NULL, burn_briefly, NULL);
  const long third = new_timer();
  for (int i = 0; i < 3; ++i) pthread_join(threads[i], NULL);
  printf("timer ids: %ld %ld %ld %ld\n", first, second, third, new_timer());
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  const int arg = argc > 2 ? atoi(argv[2]) : 0;
  int status = 2;
  if (strcmp(mode, "sleeps") == 0) status = sleeps();
  else if (strcmp(mode, "fds") == 0) status = fds();
  else if (strcmp(mode, "mask") == 0) status = mask();
  else if (strcmp(mode, "fork_alloc") == 0) status = fork_alloc(arg);
  else if (strcmp(mode, "fork_dlopen") == 0) status = fork_dlopen(arg);
  else if (strcmp(mode, "fork_timers") == 0) status = fork_timers(arg);
  else if (strcmp(mode, "close_range") == 0) status = close_range_raw(arg);
  else if (strcmp(mode, "spin") == 0) status = spin_threads(arg);
  else if (strcmp(mode, "main_leaves") == 0) status = main_leaves();
  else if (strcmp(mode, "exit_call") == 0) status = exit_call(arg);
  else if (strcmp(mode, "strict_mode") == 0) status = strict_mode(0);
  else if (strcmp(mode, "strict_syscall") == 0) status = strict_mode(1);
  else if (strcmp(mode, "filter_every_thread") == 0) status = filter_every_thread();
  else if (strcmp(mode, "traces") == 0) status = traces();
  else if (strcmp(mode, "address_limit") == 0) status = address_limit();
  else fprintf(stderr, "usage: unharmed_target sleeps|fds|mask|fork_alloc N|fork_dlopen N|fork_timers N|close_range N|spin N|main_leaves|"
                       "exit_call N|strict_mode|strict_syscall|filter_every_thread\n");
  truth_write();
  return status;
}
