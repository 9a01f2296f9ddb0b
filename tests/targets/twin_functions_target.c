/* Two static functions of one name, `work`, one in twin_a.c burning 0.2 s
 * of CPU time and one in twin_b.c burning 0.4 s (scaled by argv[1]), for
 * er_print's `#` argument (fsingle work 2, source work 2, ...). */
#include <stdio.h>
#include <stdlib.h>

double twin_a(double seconds);
double twin_b(double seconds);

int main(int argc, char** argv) {
  const double scale = argc > 1 ? atof(argv[1]) : 1.0;
  const double x = twin_a(0.2 * scale) + twin_b(0.4 * scale);
  printf("twin_functions_target done %d\n", x > 0);
  return 0;
}
