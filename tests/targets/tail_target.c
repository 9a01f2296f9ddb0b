/* A thread whose last CPU time no clock-profiling signal reaches: it burns
 * CPU in sampled_part, then blocks SIGPROF by system call (past any
 * wrapper of sigprocmask) and burns more in unsignalled_part before it
 * ends, as a thread on a loaded machine can end tens of ms of CPU past its
 * last sample. Truth: each part's CPU time. Prints one line. */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "truth.h"

#define NOINLINE __attribute__((noinline))

NOINLINE void sampled_part(void) {
  const double t0 = thread_cpu_seconds();
  burn_cpu(0.1);
  truth_add("sampled_part", thread_cpu_seconds() - t0);
}

NOINLINE void unsignalled_part(void) {
  const double t0 = thread_cpu_seconds();
  burn_cpu(0.3);
  truth_add("unsignalled_part", thread_cpu_seconds() - t0);
}

static void* run(void* arg) {
  (void)arg;
  sampled_part();
  sigset_t prof;
  sigemptyset(&prof);
  sigaddset(&prof, SIGPROF);
  syscall(SYS_rt_sigprocmask, SIG_BLOCK, &prof, NULL, _NSIG / 8);
  unsignalled_part();
  return NULL;
}

int main(void) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, run, NULL) != 0) return 1;
  pthread_join(thread, NULL);
  truth_write();
  printf("tail_target done\n");
  return 0;
}
