#include "stacks/unwinder_validation.h"

#include <errno.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <atomic>
#include <cstdarg>
#include <cstring>

#include "interposers/call_redirection.h"

namespace lumen::collector {

namespace {

// Negative, and not -1 (libunwind's "no pipe yet"): no descriptor has them,
// so a call on them that still reached the C library fails with EBADF.
constexpr int kFakeReadEnd = -0x10000;
constexpr int kFakeWriteEnd = -0x10001;

std::atomic<bool> g_emulated{false};

bool is_libunwind_object(const char* path) { return std::strstr(path, "/libunwind") != nullptr; }

ssize_t unwinder_read(int fd, void* buffer, size_t bytes) {
  if (fd != kFakeReadEnd) return static_cast<ssize_t>(syscall(SYS_read, fd, buffer, bytes));
  errno = EAGAIN;  // an empty non-blocking pipe: libunwind only drains it
  return -1;
}

ssize_t unwinder_write(int fd, const void* buffer, size_t bytes) {
  if (fd != kFakeWriteEnd) return static_cast<ssize_t>(syscall(SYS_write, fd, buffer, bytes));
  // What the pipe's write would have copied, read the way the kernel does:
  // an address that cannot be read answers EFAULT, and nothing faults here.
  char copy[64];
  const size_t wanted = bytes < sizeof copy ? bytes : sizeof copy;
  iovec local{copy, wanted};
  iovec remote{const_cast<void*>(buffer), wanted};
  const long copied = syscall(SYS_process_vm_readv, getpid(), &local, 1ul, &remote, 1ul, 0ul);
  if (copied < 0 && errno != EFAULT) errno = EFAULT;
  return copied;
}

// syscall() as glibc's: six arguments read whatever the caller passed.
long unwinder_syscall(long number, ...) {
  va_list list;
  va_start(list, number);
  long a[6];
  for (long& argument : a) argument = va_arg(list, long);
  va_end(list);
  // An int argument fills only the low half of its register.
  const int fd = static_cast<int>(a[0]);
  if (number == SYS_read && fd == kFakeReadEnd)
    return unwinder_read(static_cast<int>(a[0]), reinterpret_cast<void*>(a[1]), static_cast<size_t>(a[2]));
  if (number == SYS_write && fd == kFakeWriteEnd)
    return unwinder_write(static_cast<int>(a[0]), reinterpret_cast<const void*>(a[1]), static_cast<size_t>(a[2]));
  return syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

}  // namespace

bool emulate_unwinder_validation_pipe() {
  if (g_emulated.load(std::memory_order_acquire)) return true;
  // Both redirected before pipe2 starts answering with the fake pair.
  // Each way libunwind reaches the pipe (1.6 makes system calls by
  // syscall(), "so that ASan does not complain"; other versions call read
  // and write): all redirected, or the real pipe stays.
  const int reads = redirect_calls(is_libunwind_object, "read", reinterpret_cast<void*>(unwinder_read));
  const int writes = redirect_calls(is_libunwind_object, "write", reinterpret_cast<void*>(unwinder_write));
  const int syscalls = redirect_calls(is_libunwind_object, "syscall", reinterpret_cast<void*>(unwinder_syscall));
  g_emulated.store(reads > 0 && writes > 0 && syscalls > 0, std::memory_order_release);
  return g_emulated.load(std::memory_order_acquire);
}

bool unwinder_validation_pipe_emulated() { return g_emulated.load(std::memory_order_acquire); }

void fake_validation_pipe(int fds[2]) {
  fds[0] = kFakeReadEnd;
  fds[1] = kFakeWriteEnd;
}

}  // namespace lumen::collector
