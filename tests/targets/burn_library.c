/* A library the dlopen target loads at run time and burns CPU in; the
 * program that calls it measures the CPU time of the call. */
#include "truth.h"

__attribute__((noinline)) double burn_in_library(double seconds) { return burn_cpu(seconds); }
