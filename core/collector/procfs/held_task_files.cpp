#include "procfs/held_task_files.h"

#include <fcntl.h>
#include <lumen/collector_plugin.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace lumen::collector {

namespace {

// Direct-mapped: a file whose slot another takes is closed (opened again
// at its next read). Far more slots than a few files of each live thread.
constexpr size_t kHeldSlots = 4096;

struct HeldFile {
  uint32_t tid = 0;
  char name[24] = {};
  int fd = -1;
};

HeldFile g_held[kHeldSlots];

size_t slot_of(uint32_t tid, const char* name) {
  uint64_t hash = 0xcbf29ce484222325u ^ tid;
  for (const char* c = name; *c != '\0'; ++c) hash = (hash ^ static_cast<unsigned char>(*c)) * 0x100000001b3u;
  return static_cast<size_t>(hash % kHeldSlots);
}

void drop(HeldFile& held) {
  if (held.fd >= 0) syscall(SYS_close, held.fd);
  held = HeldFile{};
}

int open_file(int task_dir, uint32_t tid, const char* name) {
  char path[64];
  if (tid == 0)
    std::snprintf(path, sizeof path, "/proc/self/%s", name);
  else if (tid == LUMEN_TASK_READER)  // only the reading thread reads here
    std::snprintf(path, sizeof path, "/proc/thread-self/%s", name);
  else if (task_dir >= 0)
    std::snprintf(path, sizeof path, "%u/%s", tid, name);
  else
    std::snprintf(path, sizeof path, "/proc/self/task/%u/%s", tid, name);
  const int directory = tid != 0 && tid != LUMEN_TASK_READER && task_dir >= 0 ? task_dir : AT_FDCWD;
  int fd = static_cast<int>(syscall(SYS_openat, directory, path, O_RDONLY | O_CLOEXEC, 0));
  if (fd < 0 && (errno == EMFILE || errno == ENFILE)) {
    // The program's descriptor limit binds this table too: let go of the
    // files held and try once more.
    for (HeldFile& held : g_held) drop(held);
    fd = static_cast<int>(syscall(SYS_openat, directory, path, O_RDONLY | O_CLOEXEC, 0));
  }
  return fd;
}

// Files the kernel writes whole at every read from offset 0 (one record of
// a seq_file, single_open): a read shorter than asked is the whole file, so
// it needs no second read to meet the end. Others (a thread's maps, one
// page of records a read) are read until a read returns nothing.
bool written_whole(const char* name) {
  static const char* const kWhole[] = {"schedstat", "stat", "statm", "status", "syscall", "comm", "io", "wchan"};
  for (const char* whole : kWhole)
    if (std::strcmp(name, whole) == 0) return true;
  return false;
}

long pread_whole(int fd, char* buffer, size_t size, bool whole_at_once) {
  size_t filled = 0;
  while (filled < size) {
    const long n = syscall(SYS_pread64, fd, buffer + filled, size - filled, static_cast<off_t>(filled));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return -1;
    if (n == 0) break;
    filled += static_cast<size_t>(n);
    if (whole_at_once && filled < size) break;
  }
  return filled > 0 ? static_cast<long>(filled) : -1;
}

}  // namespace

long read_held_task_file(int task_dir, uint32_t tid, const char* name, char* buffer, size_t size) {
  if (std::strlen(name) >= sizeof HeldFile::name) return -1;
  HeldFile& held = g_held[slot_of(tid, name)];
  const bool same = held.fd >= 0 && held.tid == tid && std::strcmp(held.name, name) == 0;
  const bool whole_at_once = written_whole(name);
  if (same) {
    const long n = pread_whole(held.fd, buffer, size, whole_at_once);
    if (n > 0) return n;
    // The thread ended (ESRCH), and its number may have been given to a
    // new one: the file is opened again below.
  }
  drop(held);
  const int fd = open_file(task_dir, tid, name);
  if (fd < 0) return -1;
  const long n = pread_whole(fd, buffer, size, whole_at_once);
  if (n <= 0) {
    syscall(SYS_close, fd);
    return -1;
  }
  held.tid = tid;
  std::snprintf(held.name, sizeof held.name, "%s", name);
  held.fd = fd;
  return n;
}

void forget_held_task_files() {
  for (HeldFile& held : g_held) held = HeldFile{};
}

}  // namespace lumen::collector
