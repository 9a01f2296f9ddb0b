/* A server-shaped process for collect -P's attach and detach times: 100
 * threads, 98 of them waiting on a condition variable (an idle pool) and
 * two busy, and a main thread asleep. Runs until killed.
 *
 *   gcc -O2 -o pool_target pool_target.c -lpthread
 */
#include <pthread.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER;
static volatile double sink;

static void* idle(void* unused) {
  pthread_mutex_lock(&lock);
  for (;;) pthread_cond_wait(&work, &lock);
  return unused;
}

static void* busy(void* unused) {
  for (;;)
    for (int i = 0; i < 1000000; ++i) sink = sink * 0.999 + i;
  return unused;
}

int main(void) {
  pthread_t t;
  for (int i = 0; i < 98; ++i) pthread_create(&t, NULL, idle, NULL);
  for (int i = 0; i < 2; ++i) pthread_create(&t, NULL, busy, NULL);
  for (;;) pause();
}
