/* Ping-pong of small messages between ranks 0 and 1, timed by the program
 * itself: prints the mean round trip in nanoseconds (rank 0). Each round
 * trip is one MPI_Send and one MPI_Recv on each rank, so a tracer adds the
 * cost of two traced calls per rank to it. Then the mean time of
 * MPI_Comm_rank, the cheapest traced call, and of an MPI_Send to itself
 * followed by the MPI_Recv of it (two traced calls, each with a message,
 * without the other rank), each also in the thread's CPU time, which other
 * programs on a loaded machine do not inflate.
 *   mpi_pingpong [ROUND_TRIPS] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double clock_ns(clockid_t clock) {
  struct timespec t;
  clock_gettime(clock, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}
static double now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }
static double cpu_ns(void) { return clock_ns(CLOCK_THREAD_CPUTIME_ID); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const long trips = argc > 1 ? atol(argv[1]) : 200000;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) rank = -1; /* alone: only the MPI_Comm_rank timing */
  char message[8] = {0};
  for (int warm = 0; warm < 1000; ++warm) {
    if (rank == 0) {
      MPI_Send(message, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(message, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(message, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(message, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  const double begin = now_ns();
  for (long i = 0; i < trips; ++i) {
    if (rank == 0) {
      MPI_Send(message, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(message, 8, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(message, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(message, 8, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
  const double elapsed = now_ns() - begin;
  /* The cheapest traced call, without communication: what tracing itself
   * costs a call, free of the network's and the scheduler's noise. */
  int ignored;
  const double cheap_begin = now_ns();
  const double cheap_cpu_begin = cpu_ns();
  for (long i = 0; i < trips; ++i) MPI_Comm_rank(MPI_COMM_WORLD, &ignored);
  const double cheap_cpu = cpu_ns() - cheap_cpu_begin;
  const double cheap = now_ns() - cheap_begin;
  /* A message to itself: small messages are sent eagerly, so MPI_Send
   * returns before the MPI_Recv that takes it. */
  int self;
  MPI_Comm_rank(MPI_COMM_WORLD, &self);
  const double self_cpu_begin = cpu_ns();
  for (long i = 0; i < trips; ++i) {
    MPI_Send(message, 8, MPI_CHAR, self, 1, MPI_COMM_WORLD);
    MPI_Recv(message, 8, MPI_CHAR, self, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  const double self_cpu = cpu_ns() - self_cpu_begin;
  if (rank <= 0)
    printf("round_trip_ns %.1f\ncomm_rank_ns %.1f\ncomm_rank_cpu_ns %.1f\nself_send_recv_cpu_ns %.1f\n",
           elapsed / trips, cheap / trips, cheap_cpu / trips, self_cpu / trips);
  MPI_Finalize();
  return 0;
}
