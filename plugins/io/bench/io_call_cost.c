/* What one traced call costs: N one-byte writes to /dev/null, timed by the
 * program itself; run it with and without collect and compare.
 *
 *   io_call_cost [N]      prints "N writes: T ns per write" */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char** argv) {
  const long count = argc > 1 ? atol(argv[1]) : 1000000;
  const int fd = open("/dev/null", O_WRONLY);
  if (fd < 0) {
    perror("/dev/null");
    return 1;
  }
  struct timespec begin, end;
  clock_gettime(CLOCK_MONOTONIC, &begin);
  for (long i = 0; i < count; ++i)
    if (write(fd, "x", 1) != 1) return 1;
  clock_gettime(CLOCK_MONOTONIC, &end);
  close(fd);
  const double ns = (end.tv_sec - begin.tv_sec) * 1e9 + (end.tv_nsec - begin.tv_nsec);
  printf("%ld writes: %.1f ns per write\n", count, ns / count);
  return 0;
}
