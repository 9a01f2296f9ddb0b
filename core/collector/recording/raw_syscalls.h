// [signal-safe] Memory mapping by system call, bypassing libc's symbols: the
// runtime's own mappings must never reach an interposer (the heap plugin
// traces mmap and munmap) nor be seen by the target's.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>

namespace lumen::collector {

inline void* raw_mmap(void* address, size_t length, int protection, int flags, int fd, off_t offset) {
  const long result = syscall(SYS_mmap, address, length, protection, flags, fd, offset);
  return result < 0 && result > -4096 ? MAP_FAILED : reinterpret_cast<void*>(result);
}

inline int raw_munmap(void* address, size_t length) { return static_cast<int>(syscall(SYS_munmap, address, length)); }

// [signal-safe] File access by system call, for the same reason: the
// runtime's own reads and writes must not show in an I/O trace.
inline ssize_t raw_pwrite(int fd, const void* buffer, size_t count, off_t offset) {
  return syscall(SYS_pwrite64, fd, buffer, count, offset);
}
inline int raw_fallocate(int fd, int mode, off_t offset, off_t length) {
  return static_cast<int>(syscall(SYS_fallocate, fd, mode, offset, length));
}
inline ssize_t raw_pread(int fd, void* buffer, size_t count, off_t offset) {
  return syscall(SYS_pread64, fd, buffer, count, offset);
}
inline int raw_open(const char* path, int flags, int mode = 0) {
  return static_cast<int>(syscall(SYS_openat, AT_FDCWD, path, flags, mode));
}
inline ssize_t raw_write(int fd, const void* buffer, size_t count) { return syscall(SYS_write, fd, buffer, count); }

}  // namespace lumen::collector
