/* A program with known I/O: it writes and reads byte counts chosen so that
 * no two figures are alike, on files it names, from functions it names, on
 * two threads, through every kind of call the plugin traces; and it writes
 * down what each call returned, so that er_print's figures can be checked
 * against it.
 *
 *   io_target DIR TRUTH.json
 *
 * Each call is timed from outside with CLOCK_MONOTONIC, the time summed by
 * the kind the plugin files it under (a read or write that returned bytes,
 * any other call, a failure). One read waits 30 ms for a pipe another thread
 * writes into after a sleep: the read cannot return before the write began,
 * whatever the collector does around it; the target writes down when each
 * began, and the reading thread's run delay across the read (time runnable
 * but off a CPU, read from /proc/thread-self/schedstat by system calls the
 * plugin does not trace).
 *
 * The truth file is written with stdio, which the plugin does not trace;
 * the checks are per file and per function anyway, so it would not matter.
 * A relative path is opened from the working directory, which the truth
 * names (it must hold no missing-relative.dat). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

enum { READ, WRITE, OTHER };

/* What the calls on one file, or from one function, returned. */
typedef struct tally {
  const char* name;
  long long read_bytes, write_bytes, read_count, write_count, other_count, error_count;
  long long outer_ns; /* time around the calls, measured here */
  /* outer_ns by the kind the plugin files a call under */
  long long read_ns, write_ns, other_ns, error_ns;
} tally;

static char directory[4096];
/* Three are never there: opening them fails. The last is a pipe, named as
 * the kernel names it. */
enum { FILES = 8, FUNCTIONS = 8, RELATIVE_MISSING = 6, PIPE = 7 };
static tally files[FILES] = {{.name = "alpha.dat"},   {.name = "beta.dat"},       {.name = "gamma.dat"},
                             {.name = "delta.dat"},   {.name = "missing.dat"},    {.name = "missing-at.dat"},
                             {.name = "missing-relative.dat"}, {.name = "pipe"}};
static tally functions[FUNCTIONS] = {{.name = "write_alpha"}, {.name = "read_alpha"},  {.name = "write_beta"},
                                     {.name = "write_gamma"}, {.name = "write_delta"}, {.name = "open_missing"},
                                     {.name = "read_pipe"},   {.name = "write_pipe"}};
static char pipe_name[256];
static pthread_mutex_t tally_lock = PTHREAD_MUTEX_INITIALIZER;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* This thread's run delay so far in ns (0 where the kernel keeps none), by
 * raw system calls on a descriptor of its own, so that reading it is no
 * traced call. */
static long long run_delay_ns(void) {
  static __thread int schedstat = -1;
  if (schedstat < 0) schedstat = (int)syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
  if (schedstat < 0) return 0;
  char text[128];
  const long n = syscall(SYS_pread64, schedstat, text, sizeof text - 1, 0);
  if (n <= 0) return 0;
  text[n] = '\0';
  unsigned long long on_cpu = 0, delay = 0;
  if (sscanf(text, "%llu %llu", &on_cpu, &delay) != 2) return 0;
  return (long long)delay;
}

static void count(tally* file, tally* function, int kind, long long result, long long outer_ns) {
  pthread_mutex_lock(&tally_lock);
  tally* both[2] = {file, function};
  for (int i = 0; i < 2; ++i) {
    tally* t = both[i];
    t->outer_ns += outer_ns;
    if (result < 0) ++t->error_count, t->error_ns += outer_ns;
    else if (kind == READ) t->read_bytes += result, ++t->read_count, t->read_ns += outer_ns;
    else if (kind == WRITE) t->write_bytes += result, ++t->write_count, t->write_ns += outer_ns;
    else ++t->other_count, t->other_ns += outer_ns;
  }
  pthread_mutex_unlock(&tally_lock);
}

/* Runs one call, timing it from outside, and tallies what it returned. */
#define CALL(file, function, kind, expression)                  \
  ({                                                            \
    const long long call_start = now_ns();                      \
    const long long call_result = (long long)(expression);      \
    const long long call_ns = now_ns() - call_start;            \
    count(file, function, kind, call_result, call_ns);          \
    call_result;                                                \
  })

static char* path_of(const char* name) {
  static __thread char path[8192];
  snprintf(path, sizeof path, "%s/%s", directory, name);
  return path;
}

static char buffer[262144];

/* open, write x3, pwrite, writev, a failed read, fsync, fdatasync, lseek, close */
NOINLINE void write_alpha(void) {
  tally* f = &files[0];
  tally* fn = &functions[0];
  const int fd = (int)CALL(f, fn, OTHER, open(path_of(f->name), O_CREAT | O_WRONLY | O_TRUNC, 0644));
  CALL(f, fn, WRITE, write(fd, buffer, 100003));
  CALL(f, fn, WRITE, write(fd, buffer, 7));
  CALL(f, fn, WRITE, write(fd, buffer, 65537));
  CALL(f, fn, WRITE, pwrite(fd, buffer, 4099, 11));
  struct iovec pieces[2] = {{buffer, 13}, {buffer + 13, 17}};
  CALL(f, fn, WRITE, writev(fd, pieces, 2));
  CALL(f, fn, READ, read(fd, buffer, 10)); /* write-only: EBADF, an error */
  CALL(f, fn, OTHER, fsync(fd));
  CALL(f, fn, OTHER, fdatasync(fd));
  CALL(f, fn, OTHER, lseek(fd, 0, SEEK_SET));
  CALL(f, fn, OTHER, close(fd));
}

/* open, read to the end in 4093-byte pieces, pread, readv, preadv, close */
NOINLINE void read_alpha(void) {
  tally* f = &files[0];
  tally* fn = &functions[1];
  const int fd = (int)CALL(f, fn, OTHER, open(path_of(f->name), O_RDONLY));
  while (CALL(f, fn, READ, read(fd, buffer, 4093)) > 0) {
  }
  CALL(f, fn, READ, pread(fd, buffer, 1001, 17));
  struct iovec pieces[2] = {{buffer, 19}, {buffer + 19, 23}};
  CALL(f, fn, OTHER, lseek(fd, 5, SEEK_SET));
  CALL(f, fn, READ, readv(fd, pieces, 2));
  CALL(f, fn, READ, preadv(fd, pieces, 2, 29));
  CALL(f, fn, OTHER, close(fd));
}

/* creat, write, dup, dup2, fcntl(F_DUPFD), writes through each, closes */
NOINLINE void write_beta(void) {
  tally* f = &files[1];
  tally* fn = &functions[2];
  const int fd = (int)CALL(f, fn, OTHER, creat(path_of(f->name), 0644));
  CALL(f, fn, WRITE, write(fd, buffer, 12345));
  const int copy = (int)CALL(f, fn, OTHER, dup(fd));
  CALL(f, fn, WRITE, write(copy, buffer, 111));
  const int high = (int)CALL(f, fn, OTHER, dup2(fd, 100));
  CALL(f, fn, WRITE, write(high, buffer, 222));
  const int third = (int)CALL(f, fn, OTHER, fcntl(fd, F_DUPFD_CLOEXEC, 200));
  CALL(f, fn, WRITE, pwrite(third, buffer, 333, 0));
  CALL(f, fn, OTHER, close(third));
  CALL(f, fn, OTHER, close(high));
  CALL(f, fn, OTHER, close(copy));
  CALL(f, fn, OTHER, close(fd));
}

/* The directory's own open and close are traced too, but belong to no file
 * or function of the truth. */
NOINLINE int open_directory(void) {
  const int fd = open(directory, O_RDONLY | O_DIRECTORY);
  __asm__ volatile("" ::: "memory"); /* not a tail call: this frame stays on the stack */
  return fd;
}
NOINLINE void close_directory(int fd) {
  close(fd);
  __asm__ volatile("" ::: "memory");
}

/* openat relative to a directory descriptor (named by the kernel), pwritev */
NOINLINE void write_gamma(void) {
  tally* f = &files[2];
  tally* fn = &functions[3];
  const int dir = open_directory();
  const int fd = (int)CALL(f, fn, OTHER, openat(dir, f->name, O_CREAT | O_RDWR | O_TRUNC, 0600));
  struct iovec pieces[3] = {{buffer, 5}, {buffer + 5, 7}, {buffer + 12, 9}};
  CALL(f, fn, WRITE, pwritev(fd, pieces, 3, 0));
  CALL(f, fn, WRITE, pwritev2(fd, pieces, 2, 21, 0));
  CALL(f, fn, READ, preadv2(fd, pieces, 3, 0, 0));
  CALL(f, fn, OTHER, close(fd));
  close_directory(dir);
}

/* Opens that fail, named by the path asked for: absolute, relative to a
 * directory descriptor, and relative to the working directory. */
NOINLINE void open_missing(int dir) {
  tally* fn = &functions[5];
  CALL(&files[4], fn, OTHER, open(path_of(files[4].name), O_RDONLY));
  CALL(&files[5], fn, OTHER, openat(dir, files[5].name, O_RDONLY));
  CALL(&files[RELATIVE_MISSING], fn, OTHER, open(files[RELATIVE_MISSING].name, O_RDONLY));
}

/* another thread's file */
NOINLINE void write_delta(void) {
  tally* f = &files[3];
  tally* fn = &functions[4];
  const int fd = (int)CALL(f, fn, OTHER, open(path_of(f->name), O_CREAT | O_WRONLY | O_TRUNC | O_APPEND, 0644));
  for (int i = 0; i < 9; ++i) CALL(f, fn, WRITE, write(fd, buffer, 777 + i));
  CALL(f, fn, OTHER, close(fd));
}

static void* delta_thread(void* unused) {
  (void)unused;
  write_delta();
  return NULL;
}

/* A pipe, which the plugin names on first use: the reader waits 30 ms for
 * what the writer, on a thread of its own, writes after a sleep. */
static int pipe_ends[2];
static long long pipe_read_started_ns, pipe_write_started_ns, pipe_read_delay_ns;

NOINLINE void write_pipe(void) {
  const struct timespec pause = {0, 30 * 1000 * 1000};
  nanosleep(&pause, NULL);
  pipe_write_started_ns = now_ns();
  CALL(&files[PIPE], &functions[7], WRITE, write(pipe_ends[1], "ping", 4));
  CALL(&files[PIPE], &functions[7], OTHER, close(pipe_ends[1]));
}

static void* pipe_thread(void* unused) {
  (void)unused;
  write_pipe();
  return NULL;
}

NOINLINE int read_pipe(void) {
  if (pipe(pipe_ends) != 0) return -1;
  char link[64];
  snprintf(link, sizeof link, "/proc/self/fd/%d", pipe_ends[0]);
  const long length = syscall(SYS_readlink, link, pipe_name, sizeof pipe_name - 1);
  if (length <= 0) return -1;
  pipe_name[length] = '\0';
  pthread_t writer;
  pthread_create(&writer, NULL, pipe_thread, NULL);
  char message[8];
  const long long delay_before = run_delay_ns();
  pipe_read_started_ns = now_ns();
  CALL(&files[PIPE], &functions[6], READ, read(pipe_ends[0], message, sizeof message));
  pipe_read_delay_ns = run_delay_ns() - delay_before;
  pthread_join(writer, NULL);
  CALL(&files[PIPE], &functions[6], OTHER, close(pipe_ends[0]));
  return 0;
}

static void write_tally(FILE* out, const tally* t, const char* name, int last) {
  fprintf(out,
          "  \"%s\": {\"ioreadbytes\": %lld, \"iowritebytes\": %lld, \"ioreadcnt\": %lld, \"iowritecnt\": %lld, "
          "\"ioothercnt\": %lld, \"ioerrorcnt\": %lld, \"outer_ns\": %lld, \"ioreadtime_ns\": %lld, "
          "\"iowritetime_ns\": %lld, \"ioothertime_ns\": %lld, \"ioerrortime_ns\": %lld}%s\n",
          name, t->read_bytes, t->write_bytes, t->read_count, t->write_count, t->other_count, t->error_count,
          t->outer_ns, t->read_ns, t->write_ns, t->other_ns, t->error_ns, last ? "" : ",");
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: io_target DIR TRUTH.json\n");
    return 2;
  }
  if (realpath(argv[1], directory) == NULL) {
    perror(argv[1]);
    return 2;
  }
  memset(buffer, 'x', sizeof buffer);
  pthread_t thread;
  pthread_create(&thread, NULL, delta_thread, NULL);
  write_alpha();
  read_alpha();
  write_beta();
  write_gamma();
  const int dir = open(directory, O_RDONLY | O_DIRECTORY);
  open_missing(dir);
  close(dir);
  pthread_join(thread, NULL);
  if (read_pipe() != 0) {
    perror("pipe");
    return 2;
  }

  FILE* out = fopen(argv[2], "w");
  if (out == NULL) {
    perror(argv[2]);
    return 2;
  }
  fprintf(out, "{\"files\": {\n");
  char relative[8192];
  if (getcwd(relative, sizeof relative) == NULL) return 2;
  strncat(relative, "/", sizeof relative - strlen(relative) - 1);
  strncat(relative, files[RELATIVE_MISSING].name, sizeof relative - strlen(relative) - 1);
  for (int i = 0; i < FILES; ++i)
    write_tally(out, &files[i], i == RELATIVE_MISSING ? relative : i == PIPE ? pipe_name : path_of(files[i].name),
                i == FILES - 1);
  fprintf(out, "}, \"functions\": {\n");
  for (int i = 0; i < FUNCTIONS; ++i) write_tally(out, &functions[i], functions[i].name, i == FUNCTIONS - 1);
  fprintf(out, "}, \"pipe_read\": {\"read_started_ns\": %lld, \"write_started_ns\": %lld, \"delay_ns\": %lld}}\n",
          pipe_read_started_ns, pipe_write_started_ns, pipe_read_delay_ns);
  fclose(out);
  printf("io_target done\n");
  return 0;
}
