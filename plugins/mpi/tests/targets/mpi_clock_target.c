/* A token passed around the ring of ranks, argv[2] times (default 40), rank
 * 0 pausing argv[3] milliseconds (default 25) between rounds: a chain of
 * small messages, each received after it was sent, spread over a second
 * or so (what the job's clock is checked with). Each rank writes
 * {"rank", "sent", "received"} to argv[1]/clock<rank>.json. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const int rounds = argc > 2 ? atoi(argv[2]) : 40;
  const long pause_ms = argc > 3 ? atol(argv[3]) : 25;
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size, previous = (rank + size - 1) % size;
  long sent = 0, received = 0;
  for (int round = 0; round < rounds; ++round) {
    int token = round;
    if (rank == 0) {
      const struct timespec pause = {pause_ms / 1000, (pause_ms % 1000) * 1000000L};
      nanosleep(&pause, NULL);
      MPI_Send(&token, 1, MPI_INT, next, 3, MPI_COMM_WORLD);
      MPI_Recv(&token, 1, MPI_INT, previous, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(&token, 1, MPI_INT, previous, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(&token, 1, MPI_INT, next, 3, MPI_COMM_WORLD);
    }
    ++sent;
    ++received;
  }
  MPI_Finalize();
  char path[4096];
  snprintf(path, sizeof path, "%s/clock%d.json", argv[1], rank);
  FILE* out = fopen(path, "w");
  if (out == NULL) return 3;
  fprintf(out, "{\"rank\": %d, \"sent\": %ld, \"received\": %ld}\n", rank, sent, received);
  return fclose(out) == 0 ? 0 : 3;
}
