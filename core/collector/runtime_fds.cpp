#include "runtime_fds.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

namespace lumen::collector {

namespace {

// fd + 1 per slot; 0 is a free slot. Enough for every stream and the log.
constexpr int kSlots = 64;
std::atomic<int> g_fds[kSlots];
static_assert(std::atomic<int>::is_always_lock_free, "read by the close interposer at any time");

// Below the soft limit, so the target's descriptors (counted up from 3)
// meet them last.
int high_fd_floor() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 1000;
  const long floor = static_cast<long>(limit.rlim_cur) - 2 * kSlots;
  return floor < 64 ? 0 : static_cast<int>(floor > 100000 ? 100000 : floor);
}

}  // namespace

bool is_runtime_fd(int fd) {
  if (fd < 0) return false;
  for (const auto& slot : g_fds)
    if (slot.load(std::memory_order_acquire) == fd + 1) return true;
  return false;
}

int runtime_fds_between(unsigned first, unsigned last, int* out, int capacity) {
  int count = 0;
  for (const auto& slot : g_fds) {
    const int fd = slot.load(std::memory_order_acquire) - 1;
    if (fd < 0 || unsigned(fd) < first || unsigned(fd) > last || count == capacity) continue;
    int at = count++;
    for (; at > 0 && out[at - 1] > fd; --at) out[at] = out[at - 1];  // insertion keeps it sorted
    out[at] = fd;
  }
  return count;
}

int adopt_runtime_fd(int fd) {
  if (fd < 0) return fd;
  const int floor = high_fd_floor();
  if (floor > fd) {
    const int moved = fcntl(fd, F_DUPFD_CLOEXEC, floor);
    if (moved >= 0) {
      syscall(SYS_close, fd);
      fd = moved;
    }
  }
  for (auto& slot : g_fds) {
    int expected = 0;
    if (slot.compare_exchange_strong(expected, fd + 1, std::memory_order_acq_rel)) break;
  }
  return fd;
}

void protect_runtime_fd(int fd) {
  if (fd < 0 || is_runtime_fd(fd)) return;
  for (auto& slot : g_fds) {
    int expected = 0;
    if (slot.compare_exchange_strong(expected, fd + 1, std::memory_order_acq_rel)) return;
  }
}

void close_runtime_fd(int fd) {
  if (fd < 0) return;
  for (auto& slot : g_fds) {
    int expected = fd + 1;
    if (slot.compare_exchange_strong(expected, 0, std::memory_order_acq_rel)) break;
  }
  syscall(SYS_close, fd);
}

}  // namespace lumen::collector
