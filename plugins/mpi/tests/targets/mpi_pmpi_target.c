/* An MPI program that calls MPI only through its profiling names (PMPI_),
 * as tools and some libraries do: nothing of it passes the MPI_ functions
 * a tracer wraps. Each rank writes argv[1]/rank<N>.json when done. */
#include <mpi.h>

#include "mpi_truth.h"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  int rank = 0, size = 0;
  PMPI_Init(&argc, &argv);
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  PMPI_Barrier(MPI_COMM_WORLD);
  PMPI_Finalize();
  truth_write(argv[1], rank, size);
  return 0;
}
