/* A fork-heavy program for measuring what following descendants costs:
 *   fork_exec_target fork N   N children, each _exit(0) at once
 *   fork_exec_target exec N   N children, each exec'ing this program's
 *                             "child" mode, which returns at once
 * One child at a time, so the run time is the sum of the per-child costs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc > 1 && strcmp(argv[1], "child") == 0) return 0;
  if (argc < 3) {
    fprintf(stderr, "usage: fork_exec_target fork|exec N\n");
    return 2;
  }
  const int exec_child = strcmp(argv[1], "exec") == 0;
  const int n = atoi(argv[2]);
  for (int i = 0; i < n; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      if (exec_child) execl("/proc/self/exe", argv[0], "child", (char*)NULL);
      _exit(0);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  }
  return 0;
}
