// close, close_range and closefrom as the target calls them: a descriptor
// of the runtime is not closed (the call answers EBADF for it, as it would
// have without collect), everything else is forwarded unchanged. pipe2 as
// libunwind calls it from the runtime's unwinding (its validation pipe):
// emulated where libunwind's reads and writes could be redirected
// (stacks/unwinder_validation.h), else moved to the runtime's numbers, so
// the program's first open() returns what it would without collect.
#include <dlfcn.h>
#include <errno.h>
#include <unistd.h>

#include <lumen/collector_support.h>

#include "recording/runtime_fds.h"
#include "stacks/stack_capture.h"
#include "stacks/unwinder_validation.h"

using namespace lumen::collector;

namespace {

using Close = int (*)(int);
using CloseRange = int (*)(unsigned, unsigned, int);
using Pipe2 = int (*)(int*, int);

Close real_close() {
  static const auto real = lumen::next_function<Close>("close", "GLIBC_2.2.5");
  return real;
}

CloseRange real_close_range() {
  static const auto real = lumen::next_function<CloseRange>("close_range", "GLIBC_2.34");
  return real;
}

// Closes [first, last] around the runtime's descriptors, range by range.
int close_range_around_runtime(unsigned first, unsigned last, int flags) {
  if (real_close_range() == nullptr) {
    errno = ENOSYS;
    return -1;
  }
  int ours[64];
  const int count = runtime_fds_between(first, last, ours, 64);
  unsigned from = first;
  for (int i = 0; i < count; ++i) {
    const unsigned fd = static_cast<unsigned>(ours[i]);
    if (fd > from && real_close_range()(from, fd - 1, flags) != 0) return -1;
    from = fd + 1;
  }
  if (from > last || (count > 0 && static_cast<unsigned>(ours[count - 1]) == ~0u)) return 0;
  return real_close_range()(from, last, flags);
}

}  // namespace

extern "C" {

LUMEN_EXPORT int lumen_close(int fd) {
  if (unwinding_now() && is_runtime_fd(fd)) {
    close_runtime_fd(fd);  // libunwind replacing its own pipe
    return 0;
  }
  if (is_runtime_fd(fd)) {
    errno = EBADF;
    return -1;
  }
  return real_close() ? real_close()(fd) : (errno = ENOSYS, -1);
}

LUMEN_EXPORT int lumen_close_range(unsigned first, unsigned last, int flags) {
  return close_range_around_runtime(first, last, flags);
}

LUMEN_EXPORT void lumen_closefrom(int lowest) {
  // glibc's closefrom falls back to /proc/self/fd when close_range fails;
  // here a failure leaves the rest to the loop below.
  if (close_range_around_runtime(static_cast<unsigned>(lowest < 0 ? 0 : lowest), ~0u, 0) == 0) return;
  for (int fd = lowest; fd < sysconf(_SC_OPEN_MAX); ++fd)
    if (!is_runtime_fd(fd) && real_close()) real_close()(fd);
}

LUMEN_EXPORT int lumen_pipe2(int fds[2], int flags) {
  if (unwinding_now() && unwinder_validation_pipe_emulated()) {
    fake_validation_pipe(fds);
    return 0;
  }
  static const auto real = lumen::next_function<Pipe2>("pipe2", "GLIBC_2.9");
  if (real == nullptr) return (errno = ENOSYS, -1);
  const int rc = real(fds, flags);
  if (rc == 0 && unwinding_now()) {
    // Status flags (O_NONBLOCK) belong to the open pipe and survive the move.
    fds[0] = adopt_runtime_fd(fds[0]);
    fds[1] = adopt_runtime_fd(fds[1]);
  }
  return rc;
}

}  // extern "C"

__asm__(".symver lumen_close, close@@GLIBC_2.2.5");
__asm__(".symver lumen_close_range, close_range@@GLIBC_2.34");
__asm__(".symver lumen_closefrom, closefrom@@GLIBC_2.34");
__asm__(".symver lumen_pipe2, pipe2@@GLIBC_2.9");
