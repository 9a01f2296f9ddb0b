/* Thread churn: creates and joins N short threads one after another, each
 * allocating and freeing 64 bytes, for the cost of a thread's begin and
 * end under each collector (churn.sh).
 *   churn_target N */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void* body(void* argument) {
  void* volatile block = malloc(64);
  free(block);
  return argument;
}

int main(int argc, char** argv) {
  const long count = argc > 1 ? atol(argv[1]) : 5000;
  for (long i = 0; i < count; ++i) {
    pthread_t thread;
    if (pthread_create(&thread, NULL, body, NULL) != 0) return 1;
    pthread_join(thread, NULL);
  }
  printf("churn_target: %ld threads\n", count);
  return 0;
}
