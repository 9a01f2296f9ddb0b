#include "threads/own_descriptor_table.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>

#include "recording/runtime_fds.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif

namespace lumen::collector {

namespace {

__attribute__((tls_model("initial-exec"))) thread_local int t_own_table_pidfd = -1;
__attribute__((tls_model("initial-exec"))) thread_local bool t_own_table = false;

bool close_range_between(unsigned first, unsigned last) {
  return first > last || syscall(SYS_close_range, first, last, 0u) == 0;
}

bool kept(int fd, const int* keep, int count) {
  for (int i = 0; i < count; ++i)
    if (keep[i] == fd) return true;
  return false;
}

// Kernels before 5.9 have no close_range: the table is listed and closed
// entry by entry, until a pass finds nothing more.
bool close_listed_except(const int* keep, int count) {
  for (int pass = 0; pass < 64; ++pass) {
    const int dir =
        static_cast<int>(syscall(SYS_openat, AT_FDCWD, "/proc/thread-self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir < 0) return false;
    bool closed = false;
    alignas(8) char entries[4096];
    for (long n; (n = syscall(SYS_getdents64, dir, entries, sizeof entries)) > 0;) {
      for (long at = 0; at < n;) {
        const char* entry = entries + at;
        const unsigned short length = *reinterpret_cast<const unsigned short*>(entry + 16);
        const char* name = entry + 19;
        at += length;
        if (name[0] < '0' || name[0] > '9') continue;
        const int fd = std::atoi(name);
        if (fd != dir && !kept(fd, keep, count) && syscall(SYS_close, fd) == 0) closed = true;
      }
    }
    syscall(SYS_close, dir);
    if (!closed) return true;
  }
  return false;
}

}  // namespace

bool close_descriptors_except(const int* keep, int count) {
  unsigned next = 0;
  bool ranges = true;
  for (int i = 0; i < count && ranges; ++i) {
    if (keep[i] > 0) ranges = close_range_between(next, static_cast<unsigned>(keep[i]) - 1);
    next = static_cast<unsigned>(keep[i]) + 1;
  }
  if (ranges && close_range_between(next, ~0u)) return true;
  return close_listed_except(keep, count);
}

// Whether a copied table could be emptied of the program's descriptors:
// one that keeps them would hold the program's pipes and sockets open.
bool can_close_copies() {
  return syscall(SYS_close_range, ~0u, ~0u, 0u) == 0 ||
         syscall(SYS_faccessat, AT_FDCWD, "/proc/thread-self/fd", R_OK) == 0;
}

bool take_own_descriptor_table(bool with_runtime_fds) {
  if (t_own_table) return true;
  if (!can_close_copies() || syscall(SYS_unshare, CLONE_FILES) != 0) return false;
  constexpr int kMost = 64;
  int keep[kMost];
  const int count = with_runtime_fds ? runtime_fds_between(0, ~0u, keep, kMost) : 0;
  if (!close_descriptors_except(keep, count)) return false;
  t_own_table_pidfd = static_cast<int>(syscall(SYS_pidfd_open, getpid(), 0));
  t_own_table = true;
  return true;
}

bool has_own_descriptor_table() { return t_own_table; }

bool bring_from_programs_table(int fd) {
  if (!t_own_table || t_own_table_pidfd < 0 || fd < 0) return false;
  const int copy = static_cast<int>(syscall(SYS_pidfd_getfd, t_own_table_pidfd, fd, 0));
  if (copy < 0) return false;
  if (copy != fd) {
    const bool placed = syscall(SYS_dup3, copy, fd, O_CLOEXEC) == fd;
    syscall(SYS_close, copy);
    return placed;
  }
  return true;
}

}  // namespace lumen::collector
