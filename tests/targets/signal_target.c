/* A target that uses SIGPROF itself: an ITIMER_PROF handler installed with
 * sigaction must keep running under collect, a handler installed with
 * signal() too (this one burns CPU inside the handler), and blocking SIGPROF
 * must not stop the collector's samples.
 * Prints only facts that hold with or without the collector. */
#include <signal.h>
#include <string.h>
#include <sys/time.h>

#include "truth.h"

static volatile sig_atomic_t itimer_calls;
static volatile sig_atomic_t usr1_calls;

static void on_itimer(int signal, siginfo_t* info, void* context) {
  (void)signal, (void)info, (void)context;
  ++itimer_calls;
}
__attribute__((noinline)) void spin_in_signal_handler(double s) {
  double t0 = thread_cpu_seconds();
  burn_cpu(s);
  truth_add("spin_in_signal_handler", thread_cpu_seconds() - t0);
}

/* Runs on the signal frame the kernel builds, so its caller in every
 * sample is the sigreturn trampoline. */
static void on_usr1(int signal) {
  (void)signal;
  ++usr1_calls;
  spin_in_signal_handler(0.2);
}

__attribute__((noinline)) void spin_with_itimer(double s) {
  double t0 = thread_cpu_seconds();
  burn_cpu(s);
  truth_add("spin_with_itimer", thread_cpu_seconds() - t0);
}

__attribute__((noinline)) void spin_with_sigprof_blocked(double s) {
  double t0 = thread_cpu_seconds();
  burn_cpu(s);
  truth_add("spin_with_sigprof_blocked", thread_cpu_seconds() - t0);
}

int main(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_sigaction = on_itimer;
  action.sa_flags = SA_SIGINFO | SA_RESTART;
  sigaction(SIGPROF, &action, NULL);
  struct itimerval every_5ms = {{0, 5000}, {0, 5000}}, off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &every_5ms, NULL);
  spin_with_itimer(0.3);
  setitimer(ITIMER_PROF, &off, NULL);

  struct sigaction installed;
  sigaction(SIGPROF, NULL, &installed);
  printf("own SIGPROF handler still installed: %s\n", installed.sa_sigaction == on_itimer ? "yes" : "no");
  printf("own SIGPROF handler ran: %s\n", itimer_calls > 0 ? "yes" : "no");

  signal(SIGUSR1, on_usr1);
  raise(SIGUSR1);
  printf("SIGUSR1 handler ran: %s\n", usr1_calls == 1 ? "yes" : "no");

  sigset_t profiling;
  sigemptyset(&profiling);
  sigaddset(&profiling, SIGPROF);
  sigprocmask(SIG_BLOCK, &profiling, NULL);
  spin_with_sigprof_blocked(0.3);
  truth_write();
  return 0;
}
