/* A program that uses a signal a collector may use too (SIGPROF by
 * default, or the one named) and prints what POSIX says it sees:
 *   own_signal_target MODE [SIGNAL-NUMBER]
 *   sigwait   blocks the signal, raises it (thread-directed) and collects
 *             it with sigwait, then sends it to the process and collects
 *             it with sigwaitinfo, then raises it and reads it from a
 *             signalfd; computes meanwhile, so a clock profiler's timer
 *             runs too
 *   handler   a handler with sa_mask {SIGUSR2} and SA_RESETHAND: raised
 *             inside a section that blocks it, it runs only when the
 *             section ends, once, with the signal and SIGUSR2 blocked, and
 *             the disposition reads back SIG_DFL after it ran
 *   count N   a handler counts the signal; it is raised N times between
 *             stretches of computing
 *   waiter N  every thread blocks the signal; one waits for it with
 *             sigwaitinfo while another computes, and the main thread
 *             sends it to the process N times, each after the last was taken
 * Each line printed is one observation; the exit status is 0 when the
 * program ran to its end. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/types.h>
#include <unistd.h>

static volatile unsigned long g_sink;
static int g_signal = SIGPROF;

static void compute(int rounds) {
  for (int r = 0; r < rounds; ++r)
    for (unsigned long i = 0; i < 2000000; ++i) g_sink = g_sink + i;
}

static sigset_t only(int signal) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, signal);
  return set;
}

static int own_waits(void) {
  const sigset_t set = only(g_signal);
  sigprocmask(SIG_BLOCK, &set, NULL);
  raise(g_signal);
  compute(20);
  int got = 0;
  const int rc = sigwait(&set, &got);
  printf("sigwait: %d, signal %s\n", rc, got == g_signal ? "the one raised" : "another");

  kill(getpid(), g_signal);
  compute(20);
  siginfo_t info;
  memset(&info, 0, sizeof info);
  const int signal = sigwaitinfo(&set, &info);
  printf("sigwaitinfo: %s, sent by %s, code %s\n", signal == g_signal ? "the one sent" : "another",
         info.si_pid == getpid() ? "this process" : "another", info.si_code == SI_USER ? "SI_USER" : "other");

  const int fd = signalfd(-1, &set, SFD_CLOEXEC);
  raise(g_signal);
  compute(20);
  struct signalfd_siginfo read_info;
  const ssize_t n = read(fd, &read_info, sizeof read_info);
  printf("signalfd: %s\n", n == (ssize_t)sizeof read_info && (int)read_info.ssi_signo == g_signal ? "the one raised" : "nothing");
  close(fd);
  sigset_t pending;
  sigpending(&pending);
  printf("still pending: %s\n", sigismember(&pending, g_signal) ? "yes" : "no");
  return 0;
}

static volatile sig_atomic_t g_runs;
static volatile sig_atomic_t g_blocked_inside;  /* the signal and SIGUSR2 blocked in the handler */

static void on_signal(int signal) {
  (void)signal;
  ++g_runs;
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, NULL, &now);
  g_blocked_inside = sigismember(&now, g_signal) == 1 && sigismember(&now, SIGUSR2) == 1;
}

static int own_handler(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  action.sa_flags = SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  sigaddset(&action.sa_mask, SIGUSR2);
  sigaction(g_signal, &action, NULL);

  const sigset_t set = only(g_signal);
  sigprocmask(SIG_BLOCK, &set, NULL);
  raise(g_signal);
  compute(20);
  printf("runs inside the blocked section: %d\n", (int)g_runs);
  sigprocmask(SIG_UNBLOCK, &set, NULL);
  compute(5);
  printf("runs after it: %d\n", (int)g_runs);
  printf("signal and sa_mask blocked in the handler: %s\n", g_blocked_inside ? "yes" : "no");
  sigset_t after;
  sigprocmask(SIG_BLOCK, NULL, &after);
  printf("blocked after the handler: %s\n", sigismember(&after, SIGUSR2) ? "SIGUSR2" : "nothing it added");
  struct sigaction now;
  sigaction(g_signal, NULL, &now);
  printf("disposition after one run: %s\n", now.sa_handler == SIG_DFL ? "SIG_DFL" : "still the handler");
  return 0;
}

static void count_signal(int signal) {
  (void)signal;
  ++g_runs;
}

static int own_counts(int times) {
  signal(g_signal, count_signal);
  for (int i = 0; i < times; ++i) {
    compute(5);
    raise(g_signal);
  }
  compute(5);
  printf("handled: %d of %d\n", (int)g_runs, times);
  return 0;
}

static volatile int g_taken;

static void* take_signals(void* arg) {
  const int times = *(const int*)arg;
  const sigset_t set = only(g_signal);
  for (int i = 0; i < times; ++i) {
    siginfo_t info;
    const int got = sigwaitinfo(&set, &info);
    if (got == g_signal) __atomic_add_fetch(&g_taken, 1, __ATOMIC_SEQ_CST);
    else printf("sigwaitinfo returned %d (%s)\n", got, got < 0 ? strerror(errno) : "another signal");
  }
  return NULL;
}

static volatile int g_computing = 1;

static void* compute_meanwhile(void* arg) {
  (void)arg;
  while (g_computing) compute(1);
  return NULL;
}

static int own_waiter(int times) {
  const sigset_t set = only(g_signal);
  pthread_sigmask(SIG_BLOCK, &set, NULL);  /* inherited by both threads */
  pthread_t waiter, worker;
  pthread_create(&waiter, NULL, take_signals, &times);
  pthread_create(&worker, NULL, compute_meanwhile, NULL);
  for (int i = 0; i < times; ++i) {
    kill(getpid(), g_signal);
    for (int wait = 0; wait < 500 && __atomic_load_n(&g_taken, __ATOMIC_SEQ_CST) <= i; ++wait) usleep(10000);
  }
  g_computing = 0;
  pthread_join(worker, NULL);
  printf("the waiting thread took: %d of %d\n", __atomic_load_n(&g_taken, __ATOMIC_SEQ_CST), times);
  if (g_taken < times) _exit(3);  /* the waiter would wait for ever */
  pthread_join(waiter, NULL);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: own_signal_target sigwait|handler|count N|waiter N [SIGNAL-NUMBER]\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char* mode = argv[1];
  if (strcmp(mode, "count") == 0 || strcmp(mode, "waiter") == 0) {
    if (argc > 3) g_signal = atoi(argv[3]);
    const int times = argc > 2 ? atoi(argv[2]) : 3;
    return strcmp(mode, "count") == 0 ? own_counts(times) : own_waiter(times);
  }
  if (argc > 2) g_signal = atoi(argv[2]);
  if (strcmp(mode, "sigwait") == 0) return own_waits();
  if (strcmp(mode, "handler") == 0) return own_handler();
  fprintf(stderr, "own_signal_target: unknown mode %s\n", mode);
  return 2;
}
