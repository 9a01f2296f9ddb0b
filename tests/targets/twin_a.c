/* One of two functions named `work` in this program, each static in a file
 * of its own, so er_print sees two functions of one name and its `#`
 * argument chooses between them. */
#include "truth.h"

__attribute__((noinline)) static double work(double seconds) { return burn_cpu(seconds); }

double twin_a(double seconds) { return work(seconds); }
