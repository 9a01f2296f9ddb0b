/* Bandwidth of small nonblocking messages between ranks 0 and 1, as
 * osu_bw measures it: rank 0 starts a window of MPI_Isend calls and
 * completes them with one MPI_Waitall, rank 1 posts as many MPI_Irecv and
 * waits for them with one MPI_Waitall, then answers with a 4-byte message;
 * WINDOWS times after 10 unmeasured windows. Prints (rank 0) the bandwidth
 * in MB/s and the time a message. Each message costs a traced MPI_Isend on
 * one rank, a traced MPI_Irecv on the other, and its share of a Waitall
 * completing 64 requests on each. Run on one rank, it messages itself: a
 * window of 64 MPI_Irecv, 64 MPI_Isend and one MPI_Waitall of the 128
 * requests, all on one thread and in its CPU time, which neither the
 * partner's scheduling nor a loaded machine inflates much (and which
 * callgrind counts exactly).
 *   mpi_window_bandwidth [BYTES [WINDOWS]]   (1, 20000) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { kWindow = 64, kWarmWindows = 10 };

static double cpu_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int bytes = argc > 1 ? atoi(argv[1]) : 1;
  const long windows = argc > 2 ? atol(argv[2]) : 20000;
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size > 2) MPI_Abort(MPI_COMM_WORLD, 2);
  char* buffer = calloc((size_t)bytes > 4 ? (size_t)bytes : 4, 1);
  char* incoming = calloc((size_t)bytes > 4 ? (size_t)bytes : 4, 1);
  MPI_Request requests[2 * kWindow];
  MPI_Status statuses[2 * kWindow];
  double begin = 0, cpu_begin = 0;
  for (long w = 0; w < windows + kWarmWindows; ++w) {
    if (w == kWarmWindows) {
      begin = MPI_Wtime();
      cpu_begin = cpu_ns();
    }
    if (size == 1) {
      for (int j = 0; j < kWindow; ++j) MPI_Irecv(incoming, bytes, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &requests[j]);
      for (int j = 0; j < kWindow; ++j)
        MPI_Isend(buffer, bytes, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &requests[kWindow + j]);
      MPI_Waitall(2 * kWindow, requests, statuses);
    } else if (rank == 0) {
      for (int j = 0; j < kWindow; ++j) MPI_Isend(buffer, bytes, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &requests[j]);
      MPI_Waitall(kWindow, requests, statuses);
      MPI_Recv(buffer, 4, MPI_CHAR, 1, 101, MPI_COMM_WORLD, &statuses[0]);
    } else {
      for (int j = 0; j < kWindow; ++j) MPI_Irecv(buffer, bytes, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &requests[j]);
      MPI_Waitall(kWindow, requests, statuses);
      MPI_Send(buffer, 4, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
    }
  }
  const double seconds = MPI_Wtime() - begin;
  const double cpu = cpu_ns() - cpu_begin;
  if (rank == 0) {
    const double messages = (double)windows * kWindow;
    printf("%s_bandwidth_mbs %.3f\n%s_message_ns %.1f\n%s_message_cpu_ns %.1f\n", size == 1 ? "self" : "window",
           bytes * messages / seconds / 1e6, size == 1 ? "self" : "window", seconds * 1e9 / messages,
           size == 1 ? "self" : "window", cpu / messages);
  }
  free(buffer);
  free(incoming);
  MPI_Finalize();
  return 0;
}
