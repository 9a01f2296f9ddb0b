/* Multithreaded CPU target: the main thread and three threads each burn a
 * known amount of CPU in a function of their own, and the measured truth is
 * written per function. Usage: threads_target [seconds_scale] */
#include "truth.h"

#define NOINLINE __attribute__((noinline))

NOINLINE void spin_main(double s) { double t0 = thread_cpu_seconds(); burn_cpu(s); truth_add("spin_main", thread_cpu_seconds() - t0); }
NOINLINE void spin_a(double s) { double t0 = thread_cpu_seconds(); burn_cpu(s); truth_add("spin_a", thread_cpu_seconds() - t0); }
NOINLINE void spin_b(double s) { double t0 = thread_cpu_seconds(); burn_cpu(s); truth_add("spin_b", thread_cpu_seconds() - t0); }
NOINLINE void spin_c(double s) { double t0 = thread_cpu_seconds(); burn_cpu(s); truth_add("spin_c", thread_cpu_seconds() - t0); }

static double scale = 1.0;
static void* thread_a(void* arg) { (void)arg; spin_a(0.4 * scale); return NULL; }
static void* thread_b(void* arg) { (void)arg; spin_b(0.6 * scale); return NULL; }
static void* thread_c(void* arg) { (void)arg; spin_c(0.2 * scale); return NULL; }

int main(int argc, char** argv) {
  if (argc > 1) scale = atof(argv[1]);
  pthread_t threads[3];
  pthread_create(&threads[0], NULL, thread_a, NULL);
  pthread_create(&threads[1], NULL, thread_b, NULL);
  pthread_create(&threads[2], NULL, thread_c, NULL);
  spin_main(0.3 * scale);
  for (int i = 0; i < 3; ++i) pthread_join(threads[i], NULL);
  truth_write();
  printf("threads_target done\n");
  return 0;
}
