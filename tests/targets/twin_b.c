/* The second function named `work` of twin_functions_target. */
#include "truth.h"

__attribute__((noinline)) static double work(double seconds) {
  double x = 0;
  for (int half = 0; half < 2; ++half) x += burn_cpu(seconds / 2);
  return x;
}

double twin_b(double seconds) { return work(seconds); }
