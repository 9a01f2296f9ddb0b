/* A program whose function name is markup: its symbol is an HTML element
 * with a script in an attribute, run on a thread of its own, for the tests
 * that check a page shows names as text.
 * Usage: markup_names_target [seconds] */
#include <pthread.h>
#include <stdlib.h>

#include "truth.h"

/* The assembler takes a quoted symbol name as it is. */
__attribute__((noinline)) void markup_function(double s) __asm__("\"<img src=x onerror=alert(1)>\"");
__attribute__((noinline)) void markup_function(double s) { burn_cpu(s); }

static double seconds = 0.3;

static void* markup_thread(void* arg) {
  (void)arg;
  markup_function(seconds);
  return NULL;
}

int main(int argc, char** argv) {
  if (argc > 1) seconds = atof(argv[1]);
  pthread_t thread;
  pthread_create(&thread, NULL, markup_thread, NULL);
  pthread_join(thread, NULL);
  return 0;
}
