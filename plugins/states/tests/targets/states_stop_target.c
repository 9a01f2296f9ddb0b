/* A target the test stops from outside (SIGSTOP, then SIGCONT) for a time
 * the test measures, for the states plugin's `stop`:
 *   states_stop_target PID_FIFO GO_FIFO
 * It starts burn_until_go (a thread burning CPU until the go), writes its
 * process id into PID_FIFO, and waits in wait_for_go for a byte on GO_FIFO
 * (the test writes it once it has stopped and continued the process).
 * Both threads are stopped for the time the process is; each function's
 * `stop` is compared with the test's measurement. It prints one line, the
 * same with and without collect. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile int g_go;
static volatile double g_sink;

__attribute__((noinline)) static void burn_until_go(void) {
  double x = 1.0;
  while (!g_go)
    for (int i = 0; i < 100000; ++i) x = x * 1.0000001 + 1e-9;
  g_sink = x;
}

static void* burner(void* unused) {
  (void)unused;
  burn_until_go();
  return NULL;
}

__attribute__((noinline)) static int wait_for_go(const char* go_fifo) {
  const int go = open(go_fifo, O_RDONLY | O_CLOEXEC);
  if (go < 0) return 1;
  char byte = 0;
  const ssize_t n = read(go, &byte, 1);
  close(go);
  return n == 1 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: states_stop_target PID_FIFO GO_FIFO\n");
    return 2;
  }
  pthread_t thread;
  if (pthread_create(&thread, NULL, burner, NULL) != 0) return 1;
  const int pid_out = open(argv[1], O_WRONLY | O_CLOEXEC);
  char text[32];
  const int length = snprintf(text, sizeof text, "%d\n", (int)getpid());
  const int told = pid_out >= 0 && write(pid_out, text, (size_t)length) == length;
  if (pid_out >= 0) close(pid_out);
  const int failed = !told || wait_for_go(argv[2]);
  g_go = 1;
  pthread_join(thread, NULL);
  printf("states_stop_target %s\n", failed ? "failed" : "done");
  return failed;
}
