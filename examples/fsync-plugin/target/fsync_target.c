/* A program that forces its files to disk a known number of times, from
 * functions it names, on two threads, and writes down what it did, so that
 * er_print's figures for the fsync plugin can be checked against it.
 *
 *   fsync_target DIR TRUTH.json
 *
 * Per file and per function: the calls made, and the time measured around
 * them (the plugin's time lies inside it). One call fails (descriptor
 * -1): it counts, on no file. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

typedef struct tally {
  const char* name;
  long long calls, outer_ns;
} tally;

static char directory[4096];
static tally files[3] = {{.name = "journal.dat"}, {.name = "data.dat"}, {.name = "<no file>"}};
static tally functions[3] = {{.name = "sync_journal"}, {.name = "sync_data"}, {.name = "sync_nothing"}};
static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* One call, timed from outside, tallied on its file and function. */
static void synced(tally* file, tally* function, int (*sync_call)(int), int fd) {
  const long long start = now_ns();
  sync_call(fd);
  const long long outer = now_ns() - start;
  pthread_mutex_lock(&tally_lock);
  ++file->calls, ++function->calls;
  file->outer_ns += outer, function->outer_ns += outer;
  pthread_mutex_unlock(&tally_lock);
}

static int open_file(const char* name) {
  char path[8192];
  snprintf(path, sizeof path, "%s/%s", directory, name);
  return open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
}

/* Writes a line to `file` and syncs it, `times` times, for `function`. */
static void write_and_sync(tally* file, tally* function, int (*sync_call)(int), int times) {
  const int fd = open_file(file->name);
  for (int i = 0; i < times; ++i) {
    if (write(fd, "entry\n", 6) != 6) exit(2);
    synced(file, function, sync_call, fd);
  }
  close(fd);
}

NOINLINE void sync_journal(void) {
  write_and_sync(&files[0], &functions[0], fsync, 3);
  __asm__ volatile("" ::: "memory"); /* not a tail call: this frame stays on the stack */
}

NOINLINE void sync_data(void) {
  write_and_sync(&files[1], &functions[1], fdatasync, 5);
  __asm__ volatile("" ::: "memory");
}

NOINLINE void sync_nothing(void) {
  synced(&files[2], &functions[2], fsync, -1); /* EBADF: no descriptor at all */
  __asm__ volatile("" ::: "memory");
}

static void* data_thread(void* unused) {
  (void)unused;
  sync_data();
  return NULL;
}

static void write_tally(FILE* out, const tally* t, const char* name, int last) {
  fprintf(out, "  \"%s\": {\"fsynccnt\": %lld, \"outer_ns\": %lld}%s\n", name, t->calls, t->outer_ns, last ? "" : ",");
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: fsync_target DIR TRUTH.json\n");
    return 2;
  }
  if (realpath(argv[1], directory) == NULL) {
    perror(argv[1]);
    return 2;
  }
  pthread_t thread;
  pthread_create(&thread, NULL, data_thread, NULL);
  sync_journal();
  sync_nothing();
  pthread_join(thread, NULL);

  FILE* out = fopen(argv[2], "w");
  if (out == NULL) {
    perror(argv[2]);
    return 2;
  }
  char path[8192];
  fprintf(out, "{\"files\": {\n");
  for (int i = 0; i < 3; ++i) {
    if (i < 2) snprintf(path, sizeof path, "%s/%s", directory, files[i].name);
    write_tally(out, &files[i], i < 2 ? path : files[i].name, i == 2);
  }
  fprintf(out, "}, \"functions\": {\n");
  for (int i = 0; i < 3; ++i) write_tally(out, &functions[i], functions[i].name, i == 2);
  fprintf(out, "}}\n");
  fclose(out);
  printf("fsync_target done\n");
  return 0;
}
