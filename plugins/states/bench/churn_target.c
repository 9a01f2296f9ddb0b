/* Thread churn: creates and joins N short threads one after another, each
 * allocating and freeing 64 bytes, for the cost of a thread's begin and
 * end under each collector (churn.sh). With "lock", each thread instead
 * takes a mutex the main thread holds while it computes a little: one
 * contended wait a thread (collect -s).
 *   churn_target [N] [lock] */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;

static void* body(void* argument) {
  void* volatile block = malloc(64);
  free(block);
  return argument;
}

static void* locking_body(void* argument) {
  pthread_mutex_lock(&g_mutex);
  pthread_mutex_unlock(&g_mutex);
  return argument;
}

int main(int argc, char** argv) {
  const long count = argc > 1 ? atol(argv[1]) : 5000;
  const int locks = argc > 2 && strcmp(argv[2], "lock") == 0;
  for (long i = 0; i < count; ++i) {
    pthread_t thread;
    if (locks) pthread_mutex_lock(&g_mutex);
    if (pthread_create(&thread, NULL, locks ? locking_body : body, NULL) != 0) return 1;
    if (locks) {
      for (volatile int k = 0; k < 20000; ++k) {
      }
      pthread_mutex_unlock(&g_mutex);
    }
    pthread_join(thread, NULL);
  }
  printf("churn_target: %ld threads\n", count);
  return 0;
}
