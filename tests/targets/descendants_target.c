/* A founder that creates descendants every way a program can: fork (and an
 * exec in that child), posix_spawn, and system(). Every process burns CPU in
 * a function of its own and writes its own truth to LUMEN_TEST_TRUTH.<pid>.<role>.
 * Each descendant exits with status 5; the founder prints what it saw.
 *
 * "endings": three forked children end three ways (_exit(7), return from
 * a function that exits 9 through exit(), killed by SIGTERM from the
 * parent) and the founder prints the statuses it waited for.
 * "outlive": the founder says "started" on stdout, reads stdin to its end
 * and exits with status 3 (a test kills collect meanwhile).
 * "vfork": the founder works, then vforks a child that execs this program
 * as "exec" at once (the child shares the founder's memory until then).
 * "become": the founder works, then execs this program as "exec" itself,
 * with no fork: one process, two images.
 * "concurrent": 8 threads fork at once, 4 rounds, as a launcher starting
 * ranks from several threads does; each child exits 5 at once, and the
 * founder prints each child's pid and status. */
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "truth.h"

extern char** environ;

static void write_own_truth(const char* role) {
  const char* base = getenv("LUMEN_TEST_TRUTH");
  if (base == NULL) return;
  char path[4096];
  snprintf(path, sizeof path, "%s.%d.%s", base, (int)getpid(), role);
  setenv("LUMEN_TEST_TRUTH", path, 1);
  truth_write();
  setenv("LUMEN_TEST_TRUTH", base, 1);
}

#define MEASURED(name, seconds)                   \
  __attribute__((noinline)) void name(void) {     \
    double t0 = thread_cpu_seconds();             \
    burn_cpu(seconds);                            \
    truth_add(#name, thread_cpu_seconds() - t0);  \
  }
MEASURED(founder_work, 0.2)
MEASURED(forked_child_work, 0.3)
MEASURED(exec_image_work, 0.25)

/* Flushed at once: a forked child that calls exit() would print a copy of
 * anything still buffered. */
static void print_status(const char* what, int status) {
  if (WIFEXITED(status)) printf("%s exit %d\n", what, WEXITSTATUS(status));
  else if (WIFSIGNALED(status)) printf("%s signal %d\n", what, WTERMSIG(status));
  fflush(stdout);
}

static int endings(void) {
  int status = 0;
  pid_t child = fork();
  if (child == 0) _exit(7);
  waitpid(child, &status, 0);
  print_status("_exit", status);
  child = fork();
  if (child == 0) exit(9);
  waitpid(child, &status, 0);
  print_status("exit", status);
  int ready[2];
  if (pipe(ready) != 0) return 1;
  child = fork();
  if (child == 0) {
    close(ready[0]);
    if (write(ready[1], "r", 1) != 1) _exit(1);
    for (;;) pause();
  }
  close(ready[1]);
  char byte;
  if (read(ready[0], &byte, 1) != 1) return 1;
  kill(child, SIGTERM);
  waitpid(child, &status, 0);
  print_status("killed", status);
  return 0;
}

static int outlive(void) {
  printf("started\n");
  fflush(stdout);
  char buffer[256];
  while (read(0, buffer, sizeof buffer) > 0) {
  }
  return 3;
}

static int vfork_exec(const char* self) {
  founder_work();
  const pid_t child = vfork();
  if (child == 0) {
    execl(self, self, "exec", (char*)NULL);
    _exit(99);
  }
  int status = 0;
  waitpid(child, &status, 0);
  print_status("vfork+exec", status);
  write_own_truth("founder");
  return 0;
}

static int become(const char* self) {
  founder_work();
  write_own_truth("founder");
  fflush(stdout);
  execl(self, self, "exec", (char*)NULL);
  return 99;
}

enum { kForkingThreads = 8, kForkRounds = 4 };
static pthread_barrier_t g_start_together;

static void* fork_at_once(void* slot) {
  pid_t* children = slot;
  for (int round = 0; round < kForkRounds; ++round) {
    pthread_barrier_wait(&g_start_together);
    const pid_t child = fork();
    if (child == 0) _exit(5);
    children[round] = child;
  }
  return NULL;
}

static int concurrent_forks(void) {
  pthread_t threads[kForkingThreads];
  pid_t children[kForkingThreads][kForkRounds];
  pthread_barrier_init(&g_start_together, NULL, kForkingThreads);
  for (int t = 0; t < kForkingThreads; ++t) pthread_create(&threads[t], NULL, fork_at_once, children[t]);
  for (int t = 0; t < kForkingThreads; ++t) pthread_join(threads[t], NULL);
  for (int t = 0; t < kForkingThreads; ++t)
    for (int round = 0; round < kForkRounds; ++round) {
      int status = 0;
      waitpid(children[t][round], &status, 0);
      printf("%d ", (int)children[t][round]);
      print_status("child", status);
    }
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "concurrent") == 0) return concurrent_forks();
  if (argc > 1 && strcmp(argv[1], "endings") == 0) return endings();
  if (argc > 1 && strcmp(argv[1], "vfork") == 0) return vfork_exec(argv[0]);
  if (argc > 1 && strcmp(argv[1], "become") == 0) return become(argv[0]);
  if (argc > 1 && strcmp(argv[1], "outlive") == 0) return outlive();
  if (argc > 1 && strcmp(argv[1], "exec") == 0) {
    exec_image_work();
    write_own_truth("exec");
    return 5;
  }
  founder_work();
  int status = 0;
  const pid_t child = fork();
  if (child == 0) {
    truth_count = 0;  /* the founder's measurements are the founder's */
    forked_child_work();
    write_own_truth("fork");
    execl(argv[0], argv[0], "exec", (char*)NULL);
    _exit(99);
  }
  waitpid(child, &status, 0);
  printf("fork+exec exit %d\n", WEXITSTATUS(status));
  char* spawn_argv[] = {argv[0], "exec", NULL};
  pid_t spawned;
  posix_spawn(&spawned, argv[0], NULL, NULL, spawn_argv, environ);
  waitpid(spawned, &status, 0);
  printf("posix_spawn exit %d\n", WEXITSTATUS(status));
  char command[4096];
  snprintf(command, sizeof command, "'%s' exec", argv[0]);
  printf("system exit %d\n", WEXITSTATUS(system(command)));
  write_own_truth("founder");
  return 0;
}
