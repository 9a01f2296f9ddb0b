/* A program that starts short-lived threads without pause: the main
 * thread creates one, joins it, sleeps 0.2 ms, and again, so that threads
 * appear and end while collect -P stops and calls its threads. Each
 * thread adds its number to a sum the main thread checks at the join.
 *
 * The main thread writes DIR/ready (its pid) once the first thread was
 * joined, and goes on until DIR/stop appears (looked at every 100 threads);
 * it exits 0 if every thread was created and joined and added its number,
 * 1 if not.
 *
 * usage: thread_churn_target DIR */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static atomic_long sum;

static void* short_lived(void* number) {
  volatile long spin = 0;
  for (int i = 0; i < 20000; ++i) spin += i;
  atomic_fetch_add(&sum, (long)number);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  char ready[4096], stop[4096];
  snprintf(ready, sizeof ready, "%s/ready", argv[1]);
  snprintf(stop, sizeof stop, "%s/stop", argv[1]);
  long expected = 0;
  int failed = 0;
  for (long n = 1;; ++n) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, short_lived, (void*)n) != 0 || pthread_join(thread, NULL) != 0) {
      fprintf(stderr, "thread_churn_target: thread %ld could not be created or joined\n", n);
      failed = 1;
      break;
    }
    expected += n;
    if (n == 1) {
      FILE* f = fopen(ready, "w");
      if (f != NULL) fprintf(f, "%d\n", (int)getpid()), fclose(f);
    }
    const struct timespec pause = {0, 200000};
    nanosleep(&pause, NULL);
    if (n % 100 == 0 && access(stop, F_OK) == 0) break;
  }
  if (atomic_load(&sum) != expected) {
    fprintf(stderr, "thread_churn_target: the threads added %ld, not %ld\n", atomic_load(&sum), expected);
    failed = 1;
  }
  return failed;
}
