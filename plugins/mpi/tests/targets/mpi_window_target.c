/* Two ranks under collect -y SIGUSR2 (recording starts paused; each rank
 * toggles its own recording by raising SIGUSR2). Paused: MPI_Init and ten
 * messages from rank 0 to rank 1. Resumed: twenty more. Then rank 0 enters
 * an MPI_Recv while recording and a thread of its own pauses recording
 * while it waits; rank 1 sends that message 0.4 s later, and pauses. A
 * call is recorded when it was entered while recording, whenever it ends.
 * Each rank writes DIR/window<N>.json: {"recorded": {"MPI_Send": n, ...}},
 * the calls it entered while recording. */
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>

static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&t, &t) != 0) {
  }
}

static void* pause_later(void* unused) {
  (void)unused;
  sleep_ms(200);
  raise(SIGUSR2); /* the process's recording: paused */
  return NULL;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, payload = 7;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 10; ++i)
    if (rank == 0) MPI_Send(&payload, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
    else MPI_Recv(&payload, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  raise(SIGUSR2); /* resumed */
  for (int i = 0; i < 20; ++i)
    if (rank == 0) MPI_Send(&payload, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
    else MPI_Recv(&payload, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (rank == 0) {
    pthread_t pauser;
    pthread_create(&pauser, NULL, pause_later, NULL);
    MPI_Recv(&payload, 1, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    pthread_join(pauser, NULL);
  } else {
    sleep_ms(400);
    MPI_Send(&payload, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    raise(SIGUSR2); /* paused */
  }
  MPI_Barrier(MPI_COMM_WORLD);
  char path[4096];
  snprintf(path, sizeof path, "%s/window%d.json", argc > 1 ? argv[1] : ".", rank);
  FILE* out = fopen(path, "w");
  if (out != NULL) {
    fprintf(out, "{\"recorded\": {\"MPI_Send\": %d, \"MPI_Recv\": %d}}\n", rank == 0 ? 20 : 1, rank == 0 ? 1 : 20);
    fclose(out);
  }
  MPI_Finalize();
  return 0;
}
