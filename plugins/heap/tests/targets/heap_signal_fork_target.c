/* Allocations from a signal handler (raised at known points, never inside an
 * allocation call) and from a forked child, which exits with status 3. The
 * child counts only its own work and writes its truth to
 * LUMEN_TEST_TRUTH.<pid>.child; the parent prints what it saw. */
#include <signal.h>
#include <sys/wait.h>

#include "heap_truth.h"

static void* volatile kept_by_handler[8];
static volatile int handled;

NOINLINE void on_signal(int signal) {
  (void)signal;
  void* kept = malloc(4321);
  void* dropped = malloc(1234);
  touch(kept, 4321);
  touch(dropped, 1234);
  free(dropped);
  kept_by_handler[handled++ % 8] = kept;
}

NOINLINE void send_signals(void) {
  for (int i = 0; i < 3; ++i) raise(SIGUSR1);
}

NOINLINE void child_work(void) {
  void* blocks[7];
  for (int i = 0; i < 7; ++i) {
    blocks[i] = malloc(2023);
    touch(blocks[i], 2023);
  }
  for (int i = 0; i < 5; ++i) free(blocks[i]);
  heap_truth_add("child_work", 7, 7 * 2023, 2, 2 * 2023);
}

NOINLINE void parent_work(void) {
  void* p = calloc(3, 1009);
  touch(p, 3 * 1009);
  free(p);
  heap_truth_add("parent_work", 1, 3 * 1009, 0, 0);
}

int main(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGUSR1, &action, NULL);
  send_signals();
  heap_truth_add("on_signal", 6, 3 * (4321 + 1234), 3, 3 * 4321);

  const pid_t child = fork();
  if (child == 0) {
    heap_truth_reset();
    child_work();
    heap_truth_write("child");
    exit(3);
  }
  parent_work();
  int status = 0;
  waitpid(child, &status, 0);
  heap_truth_write(NULL);
  say("handled %d signals; child exited %d\n", handled, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
