/* Reads the clock through the kernel's vDSO for about a second of its own
 * CPU time, measured around the loop; most of that time is spent inside the
 * vDSO's clock_gettime. Usage: vdso_target [seconds] */
#include "truth.h"

#define NOINLINE __attribute__((noinline))

NOINLINE long read_clock_often(double seconds) {
  const double t0 = thread_cpu_seconds();
  long reads = 0;
  struct timespec now;
  do {
    for (int i = 0; i < 1000; ++i) clock_gettime(CLOCK_MONOTONIC, &now);
    reads += 1000;
  } while (thread_cpu_seconds() - t0 < seconds);
  truth_add("read_clock_often", thread_cpu_seconds() - t0);
  return reads;
}

int main(int argc, char** argv) {
  const long reads = read_clock_often(argc > 1 ? atof(argv[1]) : 1.0);
  truth_write();
  printf("vdso_target done (%s)\n", reads > 0 ? "read" : "none");
  return 0;
}
