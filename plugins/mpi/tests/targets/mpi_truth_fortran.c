/* mpi_truth.h for Fortran test targets: the same account, reached through
 * BIND(C) (mpi_truth.f90 declares these). Names arrive NUL-terminated in
 * Fortran's temporaries, so each is copied. */
#include <stdlib.h>
#include <string.h>

#include "mpi_truth.h"

static const char* kept(const char* name) {
  for (int i = 0; i < truth_function_count; ++i)
    if (strcmp(truth_functions[i].name, name) == 0) return truth_functions[i].name;
  return strdup(name);
}

void lumen_truth_call(const char* name) { truth_call(kept(name)); }
void lumen_truth_send(const char* name, int to, long long bytes) { truth_send(kept(name), to, bytes); }
void lumen_truth_receive(const char* name, long long bytes) { truth_receive(kept(name), bytes); }
void lumen_truth_write(const char* dir, int rank, int size) { truth_write(dir, rank, size); }
