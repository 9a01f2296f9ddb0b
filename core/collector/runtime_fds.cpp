#include "runtime_fds.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

namespace lumen::collector {

namespace {

// fd + 1 per slot; 0 is a free slot. Enough for every stream, the log, the
// /proc readers and libunwind's pipe.
constexpr int kSlots = 64;
std::atomic<int> g_fds[kSlots];
// What each slot's descriptor is (device, inode): a descriptor the program
// closed behind the runtime's back (a raw close_range) and then reused is
// the program's again, never the runtime's.
std::atomic<uint64_t> g_devices[kSlots];
std::atomic<uint64_t> g_inodes[kSlots];
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<uint64_t>::is_always_lock_free,
              "read by the close interposer at any time");

// A program with a very high limit never reaches it; numbers from here up
// keep the kernel's descriptor table small.
constexpr rlim_t kHighestFloor = 65536;
constexpr rlim_t kRoom = 2 * kSlots;

bool identify(int fd, uint64_t* device, uint64_t* inode) {
  struct stat status;
  if (syscall(SYS_fstat, fd, &status) != 0) return false;
  *device = status.st_dev;
  *inode = status.st_ino;
  return true;
}

int getlimit(rlimit* limit) { return static_cast<int>(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, nullptr, limit)); }
int setlimit(const rlimit& limit) { return static_cast<int>(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &limit, nullptr)); }

// A copy of `fd` at or above the soft limit, where the program's open(),
// dup() and fcntl(F_DUPFD) never reach (the kernel hands out numbers below
// it only): the limit is raised for the one fcntl and set back. When it
// cannot be raised (hard limit reached, no privilege to raise that), the
// highest free number below it. -1 when neither works.
int copy_above_program(int fd) {
  rlimit limit{};
  if (getlimit(&limit) != 0) return -1;
  if (limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > kHighestFloor)
    return static_cast<int>(syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, kHighestFloor - kRoom));
  rlimit raised = limit;
  raised.rlim_cur = limit.rlim_cur + kRoom;
  if (raised.rlim_max != RLIM_INFINITY && raised.rlim_max < raised.rlim_cur) raised.rlim_max = raised.rlim_cur;
  if (setlimit(raised) == 0) {
    const int moved = static_cast<int>(syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, limit.rlim_cur));
    setlimit(limit);
    if (moved >= 0) return moved;
  }
  for (rlim_t at = limit.rlim_cur; at-- > 3 && at + kRoom > limit.rlim_cur;) {
    const int moved = static_cast<int>(syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, at));
    if (moved >= 0) return moved;
  }
  return -1;
}

void remember(int fd) {
  uint64_t device = 0, inode = 0;
  identify(fd, &device, &inode);
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_fds[i].load(std::memory_order_relaxed) != 0) continue;
    g_devices[i].store(device, std::memory_order_relaxed);
    g_inodes[i].store(inode, std::memory_order_relaxed);
    if (g_fds[i].compare_exchange_strong(expected, fd + 1, std::memory_order_acq_rel)) return;
  }
}

int slot_of(int fd) {
  if (fd < 0) return -1;
  for (int i = 0; i < kSlots; ++i)
    if (g_fds[i].load(std::memory_order_acquire) == fd + 1) return i;
  return -1;
}

}  // namespace

bool is_runtime_fd(int fd) {
  const int slot = slot_of(fd);
  if (slot < 0) return false;
  uint64_t device = 0, inode = 0;
  if (identify(fd, &device, &inode) && device == g_devices[slot].load(std::memory_order_relaxed) &&
      inode == g_inodes[slot].load(std::memory_order_relaxed))
    return true;
  // Closed behind the runtime's back, maybe reused: no longer ours.
  int expected = fd + 1;
  g_fds[slot].compare_exchange_strong(expected, 0, std::memory_order_acq_rel);
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
  const int moved = copy_above_program(fd);
  if (moved >= 0 && moved > fd) {
    syscall(SYS_close, fd);
    fd = moved;
  } else if (moved >= 0) {
    syscall(SYS_close, moved);  // the number it had was already the highest free
  }
  remember(fd);
  return fd;
}

void protect_runtime_fd(int fd) {
  if (fd < 0 || is_runtime_fd(fd)) return;
  remember(fd);
}

bool runtime_fd_intact(int fd) { return fd >= 0 && is_runtime_fd(fd); }

void forget_runtime_fd(int fd) {
  const int slot = slot_of(fd);
  int expected = fd + 1;
  if (slot >= 0) g_fds[slot].compare_exchange_strong(expected, 0, std::memory_order_acq_rel);
}

void close_runtime_fd(int fd) {
  if (fd < 0) return;
  const bool ours = is_runtime_fd(fd);
  forget_runtime_fd(fd);
  if (ours) syscall(SYS_close, fd);
}

}  // namespace lumen::collector
