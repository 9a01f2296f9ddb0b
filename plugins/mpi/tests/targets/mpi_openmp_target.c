/* OpenMP inside MPI ranks: each rank runs one imbalanced parallel region
 * of two threads (thread 0 works 0.1 s of CPU, thread 1 0.3 s) between two
 * MPI barriers, and writes the CPU time its threads measured of their work
 * to argv[1]/omp<N>.json. Built with the implementation's mpicc -fopenmp. */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <time.h>

static double thread_cpu_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static volatile double sink;

__attribute__((noinline)) void rank_work(double seconds) {
  const double until = thread_cpu_seconds() + seconds;
  double x = 1.0;
  while (thread_cpu_seconds() < until)
    for (int i = 0; i < 2000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
}

static double work;

__attribute__((noinline)) static void rank_region(void) {
#pragma omp parallel num_threads(2)
  {
    const double before = thread_cpu_seconds();
    rank_work(omp_get_thread_num() == 0 ? 0.1 : 0.3);
    const double used = thread_cpu_seconds() - before;
#pragma omp atomic
    work += used;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  rank_region();
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  if (argc < 2) return 0;
  char path[4096];
  snprintf(path, sizeof path, "%s/omp%d.json", argv[1], rank);
  FILE* out = fopen(path, "w");
  if (out == NULL) return 1;
  fprintf(out, "{\"rank\": %d, \"work\": %.9f, \"regions\": 1, \"threads\": 2}\n", rank, work);
  return fclose(out) == 0 ? 0 : 1;
}
