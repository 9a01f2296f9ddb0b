/* An MPI program whose point-to-point traffic is known exactly: blocking,
 * nonblocking, persistent and combined sends and receives, a
 * sub-communicator, collectives, a polling receive, completions by
 * MPI_Waitany and windows of many nonblocking messages (osu_bw's pattern:
 * one Waitall completing up to a compact record's 64 messages, then more
 * than it holds), each phase in its own
 * function. Every rank counts its own calls (mpi_truth.h) and writes them to
 * argv[1]/rank<N>.json. Needs an even number of ranks (2 or 4 in the tests).
 *
 * Optional argv[2]: "abort" makes the last rank call MPI_Abort after the
 * ring phase and a barrier, once the other ranks have written their truth
 * (which they do after the barrier returned, so after its record was
 * written); they then wait in a receive that never completes, and die with
 * the job. */
#include <mpi.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_truth.h"

static int rank, size;

static int type_bytes(MPI_Datatype type) {
  int bytes = 0;
  MPI_Type_size(type, &bytes);
  truth_call("MPI_Type_size");
  return bytes;
}

/* Blocking ring: even ranks send first, odd ranks receive first. */
__attribute__((noinline)) static void ring_phase(void) {
  const int next = (rank + 1) % size, previous = (rank - 1 + size) % size;
  const int count = 1000 + rank, incoming = 1000 + previous;
  int* out = calloc((size_t)count, sizeof(int));
  int* in = calloc((size_t)incoming, sizeof(int));
  const long long int_bytes = type_bytes(MPI_INT);
  for (int step = 0; step < 2; ++step) {
    const int send_now = (rank % 2 == 0) == (step == 0);
    if (send_now) {
      MPI_Send(out, count, MPI_INT, next, 1, MPI_COMM_WORLD);
      truth_call("MPI_Send");
      truth_send("MPI_Send", next, count * int_bytes);
    } else {
      MPI_Recv(in, incoming, MPI_INT, previous, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      truth_call("MPI_Recv");
      truth_receive("MPI_Recv", incoming * int_bytes);
    }
  }
  free(out);
  free(in);
}

/* Every rank to every other: Irecv, Isend, one Waitall. */
__attribute__((noinline)) static void all_to_all_phase(void) {
  const long long double_bytes = type_bytes(MPI_DOUBLE);
  double* out = calloc((size_t)(7 * (rank + 1)), sizeof(double));
  double* in = calloc((size_t)(7 * size * size), sizeof(double)); /* a separate slot per peer */
  MPI_Request* requests = calloc((size_t)(2 * size), sizeof(MPI_Request));
  int n = 0;
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    MPI_Irecv(in + 7 * size * peer, 7 * (peer + 1), MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &requests[n++]);
    truth_call("MPI_Irecv");
  }
  for (int peer = 0; peer < size; ++peer) {
    if (peer == rank) continue;
    MPI_Isend(out, 7 * (rank + 1), MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, &requests[n++]);
    truth_call("MPI_Isend");
    truth_send("MPI_Isend", peer, 7 * (rank + 1) * double_bytes);
  }
  MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
  truth_call("MPI_Waitall");
  for (int peer = 0; peer < size; ++peer)
    if (peer != rank) truth_receive("MPI_Waitall", 7 * (peer + 1) * double_bytes);
  free(out);
  free(in);
  free(requests);
}

/* Persistent requests started three times, completed with statuses. */
__attribute__((noinline)) static void persistent_phase(void) {
  const int next = (rank + 1) % size, previous = (rank - 1 + size) % size;
  char out[333], in[333];
  memset(out, rank, sizeof out);
  MPI_Request requests[2];
  MPI_Status statuses[2];
  MPI_Recv_init(in, 333, MPI_CHAR, previous, 4, MPI_COMM_WORLD, &requests[0]);
  truth_call("MPI_Recv_init");
  MPI_Send_init(out, 333, MPI_CHAR, next, 4, MPI_COMM_WORLD, &requests[1]);
  truth_call("MPI_Send_init");
  for (int round = 0; round < 3; ++round) {
    MPI_Startall(2, requests);
    truth_call("MPI_Startall");
    truth_send("MPI_Startall", next, 333);
    MPI_Waitall(2, requests, statuses);
    truth_call("MPI_Waitall");
    truth_receive("MPI_Waitall", 333);
  }
  MPI_Request_free(&requests[0]);
  truth_call("MPI_Request_free");
  MPI_Request_free(&requests[1]);
  truth_call("MPI_Request_free");
}

/* Sendrecv around the ring, and a Sendrecv_replace the other way. */
__attribute__((noinline)) static void sendrecv_phase(void) {
  const int next = (rank + 1) % size, previous = (rank - 1 + size) % size;
  short out[11] = {0}, in[11];
  MPI_Sendrecv(out, 11, MPI_SHORT, next, 5, in, 11, MPI_SHORT, previous, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  truth_call("MPI_Sendrecv");
  truth_send("MPI_Sendrecv", next, 22);
  truth_receive("MPI_Sendrecv", 22);
  long long buffer[3] = {0};
  MPI_Status status;
  MPI_Sendrecv_replace(buffer, 3, MPI_LONG_LONG, previous, 6, next, 6, MPI_COMM_WORLD, &status);
  truth_call("MPI_Sendrecv_replace");
  truth_send("MPI_Sendrecv_replace", previous, 24);
  truth_receive("MPI_Sendrecv_replace", 24);
}

/* Ranks of one parity in their own communicator: its rank 0 sends to its
 * rank 1 (world ranks differ), received from MPI_ANY_SOURCE. */
__attribute__((noinline)) static void subcommunicator_phase(void) {
  MPI_Comm half;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  truth_call("MPI_Comm_split");
  int half_rank = 0, half_size = 0;
  MPI_Comm_rank(half, &half_rank);
  truth_call("MPI_Comm_rank");
  MPI_Comm_size(half, &half_size);
  truth_call("MPI_Comm_size");
  int values[5] = {0};
  if (half_size >= 2 && half_rank == 0) {
    MPI_Send(values, 5, MPI_INT, 1, 7, half);
    truth_call("MPI_Send");
    truth_send("MPI_Send", rank + 2, 20); /* half rank 1 is world rank + 2 */
  } else if (half_size >= 2 && half_rank == 1) {
    MPI_Status status;
    MPI_Recv(values, 5, MPI_INT, MPI_ANY_SOURCE, 7, half, &status);
    truth_call("MPI_Recv");
    truth_receive("MPI_Recv", 20);
  }
  MPI_Comm_free(&half);
  truth_call("MPI_Comm_free");
}

/* A receive polled with MPI_Test until it completes. */
__attribute__((noinline)) static void polling_phase(void) {
  const int next = (rank + 1) % size, previous = (rank - 1 + size) % size;
  float out[9] = {0}, in[9];
  MPI_Request receive, send;
  MPI_Irecv(in, 9, MPI_FLOAT, previous, 8, MPI_COMM_WORLD, &receive);
  truth_call("MPI_Irecv");
  MPI_Isend(out, 9, MPI_FLOAT, next, 8, MPI_COMM_WORLD, &send);
  truth_call("MPI_Isend");
  truth_send("MPI_Isend", next, 36);
  int done = 0;
  while (!done) {
    MPI_Test(&receive, &done, MPI_STATUS_IGNORE);
    truth_call("MPI_Test");
  }
  truth_receive("MPI_Test", 36);
  MPI_Wait(&send, MPI_STATUS_IGNORE);
  truth_call("MPI_Wait");
}

/* A receive and a send completed one at a time by MPI_Waitany. */
__attribute__((noinline)) static void any_phase(void) {
  const int next = (rank + 1) % size, previous = (rank - 1 + size) % size;
  int out[5] = {0}, in[5];
  MPI_Request requests[2];
  MPI_Irecv(in, 5, MPI_INT, previous, 9, MPI_COMM_WORLD, &requests[0]);
  truth_call("MPI_Irecv");
  MPI_Isend(out, 5, MPI_INT, next, 9, MPI_COMM_WORLD, &requests[1]);
  truth_call("MPI_Isend");
  truth_send("MPI_Isend", next, 20);
  for (int completed = 0; completed < 2; ++completed) {
    int index = MPI_UNDEFINED;
    MPI_Status status;
    MPI_Waitany(2, requests, &index, &status);
    truth_call("MPI_Waitany");
    if (index == 0) truth_receive("MPI_Waitany", 20);
  }
}

/* Windows of `messages` nonblocking sends to the next rank, received from
 * the previous one, each message a different size: one Waitall completes
 * every receive of a window, another every send. */
__attribute__((noinline)) static void window_phase(int messages) {
  const int next = (rank + 1) % size, previous = (rank - 1 + size) % size;
  char out[128] = {0}, in[128][128];
  MPI_Request receives[128], sends[128];
  for (int i = 0; i < messages; ++i) {
    MPI_Irecv(in[i], 128, MPI_CHAR, previous, 10, MPI_COMM_WORLD, &receives[i]);
    truth_call("MPI_Irecv");
  }
  for (int i = 0; i < messages; ++i) {
    MPI_Isend(out, i + 1, MPI_CHAR, next, 10, MPI_COMM_WORLD, &sends[i]);
    truth_call("MPI_Isend");
    truth_send("MPI_Isend", next, i + 1);
  }
  MPI_Waitall(messages, receives, MPI_STATUSES_IGNORE);
  truth_call("MPI_Waitall");
  for (int i = 0; i < messages; ++i) truth_receive("MPI_Waitall", i + 1);
  MPI_Waitall(messages, sends, MPI_STATUSES_IGNORE);
  truth_call("MPI_Waitall");
}

__attribute__((noinline)) static void collective_phase(void) {
  int value = rank, sum = 0;
  MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
  truth_call("MPI_Bcast");
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  truth_call("MPI_Allreduce");
  MPI_Barrier(MPI_COMM_WORLD);
  truth_call("MPI_Barrier");
}

static int file_exists(const char* path) {
  FILE* f = fopen(path, "r");
  if (f == NULL) return 0;
  fclose(f);
  return 1;
}

__attribute__((noinline)) static void abort_phase(const char* truth_dir) {
  truth_call("MPI_Barrier"); /* counted before: the truth is written after it returns */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != size - 1) {
    truth_write(truth_dir, rank, size);
    int never;
    MPI_Recv(&never, 1, MPI_INT, size - 1, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return;
  }
  /* Wait for the others' accounts (written atomically) before aborting. */
  for (int other = 0; other < size - 1; ++other) {
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.json", truth_dir, other);
    while (!file_exists(path)) sched_yield();
  }
  truth_call("MPI_Abort");
  truth_write(truth_dir, rank, size);
  MPI_Abort(MPI_COMM_WORLD, 3);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  MPI_Init(&argc, &argv);
  truth_call("MPI_Init");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  truth_call("MPI_Comm_rank");
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  truth_call("MPI_Comm_size");
  if (size % 2 != 0 || size > TRUTH_MAX_RANKS) MPI_Abort(MPI_COMM_WORLD, 2);
  const int abort_last = argc > 2 && strcmp(argv[2], "abort") == 0;

  ring_phase();
  if (abort_last) abort_phase(argv[1]);
  all_to_all_phase();
  persistent_phase();
  sendrecv_phase();
  subcommunicator_phase();
  polling_phase();
  any_phase();
  window_phase(64);
  window_phase(100);
  collective_phase();

  truth_call("MPI_Finalize"); /* counted before: the truth is written after MPI ends */
  MPI_Finalize();
  truth_write(argv[1], rank, size);
  return 0;
}
