#include "recording/runtime_fds.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

#include "threads/own_descriptor_table.h"

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
// A pipe's ends (libunwind's validation pipe) with their status flags:
// libunwind keeps their numbers, so a raw close_range must not let another
// of the runtime's files, opened again, take them (libunwind would write
// the bytes it validates into that file). The pipe is made again in place.
enum SlotKind : int { kFile = 0, kPipeRead = 1, kPipeWrite = 2 };
std::atomic<int> g_kinds[kSlots];
std::atomic<int> g_status_flags[kSlots];
static_assert(std::atomic<int>::is_always_lock_free && std::atomic<uint64_t>::is_always_lock_free,
              "read by the close interposer at any time");

// A program with a very high limit never reaches it; numbers from here up
// keep the kernel's descriptor table small.
constexpr rlim_t kHighestFloor = 65536;
constexpr rlim_t kRoom = 2 * kSlots;


int getlimit(rlimit* limit) { return static_cast<int>(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, nullptr, limit)); }
int setlimit(const rlimit& limit) { return static_cast<int>(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &limit, nullptr)); }

// Raises the soft limit above `limit`'s for a moment: by kRoom (the hard
// limit too where that is needed and allowed), else up to the hard limit
// (raising that takes privilege).
bool raise_soft_limit(const rlimit& limit) {
  rlimit raised = limit;
  raised.rlim_cur = limit.rlim_cur + kRoom;
  if (raised.rlim_max != RLIM_INFINITY && raised.rlim_max < raised.rlim_cur) raised.rlim_max = raised.rlim_cur;
  if (setlimit(raised) == 0) return true;
  if (limit.rlim_max == RLIM_INFINITY || limit.rlim_max <= limit.rlim_cur) return false;
  return setlimit(rlimit{limit.rlim_max, limit.rlim_max}) == 0;
}

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
  if (raise_soft_limit(limit)) {
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

SlotKind kind_of(int fd, int status_flags) {
  struct stat status;
  if (syscall(SYS_fstat, fd, &status) != 0 || !S_ISFIFO(status.st_mode)) return kFile;
  return (status_flags & O_ACCMODE) == O_WRONLY ? kPipeWrite : kPipeRead;
}

void remember(int fd) {
  const FileIdentity identity = identity_of(fd);
  const int status_flags = static_cast<int>(syscall(SYS_fcntl, fd, F_GETFL));
  const SlotKind kind = kind_of(fd, status_flags);
  for (int i = 0; i < kSlots; ++i) {
    int expected = 0;
    if (g_fds[i].load(std::memory_order_relaxed) != 0) continue;
    g_devices[i].store(identity.device, std::memory_order_relaxed);
    g_inodes[i].store(identity.inode, std::memory_order_relaxed);
    g_kinds[i].store(kind, std::memory_order_relaxed);
    g_status_flags[i].store(status_flags, std::memory_order_relaxed);
    if (g_fds[i].compare_exchange_strong(expected, fd + 1, std::memory_order_acq_rel)) return;
  }
}

bool is_closed(int fd) { return syscall(SYS_fcntl, fd, F_GETFD) < 0 && errno == EBADF; }

// Puts `from` at exactly `to` (free), close-on-exec.
void place_at(int from, int to) {
  if (from == to) return;
  syscall(SYS_dup3, from, to, O_CLOEXEC);
  syscall(SYS_close, from);
}

// A remembered pipe whose two ends are both closed (a raw close_range) is
// made again at the same numbers, before any other file of the runtime's
// is opened again and could take them.
std::atomic<bool> g_restoring{false};
void restore_lost_pipes() {
  if (g_restoring.exchange(true, std::memory_order_acquire)) return;
  const int saved_errno = errno;
  for (int r = 0; r < kSlots; ++r) {
    const int read_end = g_fds[r].load(std::memory_order_acquire) - 1;
    if (read_end < 0 || g_kinds[r].load(std::memory_order_relaxed) != kPipeRead || !is_closed(read_end)) continue;
    for (int w = 0; w < kSlots; ++w) {
      const int write_end = g_fds[w].load(std::memory_order_acquire) - 1;
      if (write_end < 0 || g_kinds[w].load(std::memory_order_relaxed) != kPipeWrite ||
          g_inodes[w].load(std::memory_order_relaxed) != g_inodes[r].load(std::memory_order_relaxed) ||
          g_devices[w].load(std::memory_order_relaxed) != g_devices[r].load(std::memory_order_relaxed) ||
          !is_closed(write_end))
        continue;
      int ends[2];
      const int nonblock = g_status_flags[r].load(std::memory_order_relaxed) & O_NONBLOCK;
      if (syscall(SYS_pipe2, ends, O_CLOEXEC | nonblock) != 0) break;
      place_at(ends[0], read_end);
      place_at(ends[1], write_end);
      const FileIdentity made = identity_of(read_end);
      for (const int slot : {r, w}) {
        g_devices[slot].store(made.device, std::memory_order_relaxed);
        g_inodes[slot].store(made.inode, std::memory_order_relaxed);
      }
      break;
    }
  }
  errno = saved_errno;
  g_restoring.store(false, std::memory_order_release);
}

}  // namespace

FileIdentity identity_of(int fd) {
  struct stat status;
  if (fd < 0 || syscall(SYS_fstat, fd, &status) != 0) return {};
  return {static_cast<uint64_t>(status.st_dev), static_cast<uint64_t>(status.st_ino)};
}

bool still_open_on(int fd, const FileIdentity& identity) {
  if (identity == FileIdentity{}) return false;
  if (identity_of(fd) == identity) return true;
  // A runtime thread with a table of its own has the runtime's files at the
  // program table's numbers: one opened since is brought over; what was
  // brought and is not the file (the program's, at a number the runtime
  // gave up) is not kept.
  if (!bring_from_programs_table(fd)) return false;
  if (identity_of(fd) == identity) return true;
  syscall(SYS_close, fd);
  return false;
}

bool is_runtime_fd(int fd) {
  if (fd < 0) return false;
  bool ours = false;
  FileIdentity now{};
  bool looked = false;
  for (int i = 0; i < kSlots; ++i) {
    if (g_fds[i].load(std::memory_order_acquire) != fd + 1) continue;
    if (!looked) now = identity_of(fd), looked = true;
    const FileIdentity remembered{g_devices[i].load(std::memory_order_relaxed), g_inodes[i].load(std::memory_order_relaxed)};
    if (now != FileIdentity{} && remembered == now) {
      ours = true;
      continue;
    }
    // Closed behind the runtime's back, maybe reused: this entry is stale.
    int expected = fd + 1;
    g_fds[i].compare_exchange_strong(expected, 0, std::memory_order_acq_rel);
  }
  return ours;
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

bool room_above_programs_descriptors() {
  rlimit limit{};
  if (getlimit(&limit) != 0 || limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur > kHighestFloor) return false;
  if (!raise_soft_limit(limit)) return false;
  setlimit(limit);
  return true;
}

int adopt_runtime_fd(int fd) {
  // A thread with a table of its own opened it there: out of the program's
  // reach already.
  if (fd < 0 || has_own_descriptor_table()) return fd;
  restore_lost_pipes();
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

void close_runtime_fd(int fd) {
  if (fd < 0 || !is_runtime_fd(fd)) return;
  for (auto& slot : g_fds) {
    int expected = fd + 1;
    slot.compare_exchange_strong(expected, 0, std::memory_order_acq_rel);
  }
  syscall(SYS_close, fd);
}

}  // namespace lumen::collector
