/* Checks that collection changes nothing the target sees: prints its
 * arguments and stdin, an environment variable, then exits with the status
 * given as its first argument, or kills itself with a signal ("sig:N").
 * It also touches a marker file (LUMEN_TEST_MARKER) as it starts, so tests
 * can tell whether the target ran at all. "segv" crashes after burning CPU. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "truth.h"

/* Burns CPU, then dies of a real invalid write: the experiment must keep
 * what was recorded before the crash. */
__attribute__((noinline)) void burn_then_crash(void) {
  double t0 = thread_cpu_seconds();
  burn_cpu(0.3);
  truth_add("burn_then_crash", thread_cpu_seconds() - t0);
  truth_write();
  *(volatile int*)0 = 1;
}

int main(int argc, char** argv) {
  const char* marker = getenv("LUMEN_TEST_MARKER");
  if (marker != NULL) fclose(fopen(marker, "w"));
  for (int i = 0; i < argc; ++i) printf("arg[%d]=%s\n", i, argv[i]);
  const char* probe = getenv("LUMEN_TEST_PROBE");
  printf("probe=%s\n", probe ? probe : "(unset)");
  char line[256];
  while (fgets(line, sizeof line, stdin) != NULL) printf("stdin:%s", line);
  fflush(stdout);
  if (argc > 1 && strncmp(argv[1], "sig:", 4) == 0) raise(atoi(argv[1] + 4));
  if (argc > 1 && strcmp(argv[1], "segv") == 0) burn_then_crash();
  return argc > 1 ? atoi(argv[1]) : 0;
}
