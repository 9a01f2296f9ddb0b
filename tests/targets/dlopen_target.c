/* Loads libburn_library.so by its bare name (found through this program's
 * RUNPATH $ORIGIN, as dlopen resolves it for the caller), burns CPU in it and
 * in itself, unloads it, and writes the measured truth. */
#include <dlfcn.h>

#include "truth.h"

__attribute__((noinline)) void spin_before_load(double s) {
  double t0 = thread_cpu_seconds();
  burn_cpu(s);
  truth_add("spin_before_load", thread_cpu_seconds() - t0);
}

int main(void) {
  spin_before_load(0.3);
  void* library = dlopen("libburn_library.so", RTLD_NOW);
  if (library == NULL) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 4;
  }
  double (*burn)(double) = (double (*)(double))dlsym(library, "burn_in_library");
  /* The library measures itself; its truth_add is its own copy, so measure here. */
  double t0 = thread_cpu_seconds();
  burn(0.6);
  truth_add("burn_in_library", thread_cpu_seconds() - t0);
  dlclose(library);
  truth_write();
  return 0;
}
