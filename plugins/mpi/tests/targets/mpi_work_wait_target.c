/* An MPI program that knows how much CPU time its main thread spent inside
 * and outside MPI calls. Ranks work in pairs (0-1, 2-3, ...): in each of two
 * rounds one rank of a pair computes, outside MPI, for a fixed CPU time
 * (compute) while its partner waits for it inside MPI_Recv (wait_for_partner),
 * where MPI polls on the CPU; then they swap. Every MPI call is measured on
 * CLOCK_THREAD_CPUTIME_ID (IN_MPI); the time between is work. Each rank
 * writes {"rank", "in_mpi", "outside_mpi", "compute", "recv"} in seconds to
 * argv[1]/work<N>.json. argv[2], the CPU seconds of one compute, defaults
 * to 0.3. Needs an even number of ranks. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double thread_cpu_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

static double in_mpi;   /* CPU seconds inside every MPI call */
static double in_recv;  /* of which inside wait_for_partner's MPI_Recv */
static double computed; /* CPU seconds in compute */

#define IN_MPI(call)                                   \
  do {                                                 \
    const double before_ = thread_cpu_seconds();       \
    call;                                              \
    in_mpi += thread_cpu_seconds() - before_;          \
  } while (0)

static volatile double sink;

__attribute__((noinline)) static void compute(double seconds) {
  const double start = thread_cpu_seconds();
  double x = 1.0;
  while (thread_cpu_seconds() - start < seconds)
    for (int i = 0; i < 10000; ++i) x = x * 1.0000001 + 1e-9;
  sink = x;
  computed += thread_cpu_seconds() - start;
}

__attribute__((noinline)) static void wait_for_partner(int partner) {
  int token = 0;
  const double before = thread_cpu_seconds();
  IN_MPI(MPI_Recv(&token, 1, MPI_INT, partner, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  in_recv += thread_cpu_seconds() - before;
}

__attribute__((noinline)) static void release_partner(int partner) {
  int token = 1;
  IN_MPI(MPI_Send(&token, 1, MPI_INT, partner, 7, MPI_COMM_WORLD));
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const double start = thread_cpu_seconds();
  const double seconds = argc > 2 ? atof(argv[2]) : 0.3;
  int rank = 0, size = 0;
  IN_MPI(MPI_Init(&argc, &argv));
  IN_MPI(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  IN_MPI(MPI_Comm_size(MPI_COMM_WORLD, &size));
  if (size % 2 != 0) MPI_Abort(MPI_COMM_WORLD, 2);
  const int partner = rank ^ 1;
  for (int round = 0; round < 2; ++round) {
    if ((rank % 2) == round) {
      compute(seconds);
      release_partner(partner);
    } else {
      wait_for_partner(partner);
    }
  }
  IN_MPI(MPI_Barrier(MPI_COMM_WORLD));
  IN_MPI(MPI_Finalize());
  const double total = thread_cpu_seconds() - start;

  char path[4096], temporary[4200];
  snprintf(path, sizeof path, "%s/work%d.json", argv[1], rank);
  snprintf(temporary, sizeof temporary, "%s.tmp", path);
  FILE* out = fopen(temporary, "w");
  if (out == NULL) return 1;
  fprintf(out, "{\"rank\": %d, \"in_mpi\": %.9f, \"outside_mpi\": %.9f, \"compute\": %.9f, \"recv\": %.9f}\n", rank,
          in_mpi, total - in_mpi, computed, in_recv);
  fclose(out);
  rename(temporary, path); /* a reader sees all or nothing */
  return 0;
}
