#include "proc_reader.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace lumen::states {

namespace {

// Reads the whole (short) file at offset 0 into `buffer`, terminated.
bool read_text(int fd, char* buffer, size_t size) {
  const ssize_t n = pread(fd, buffer, size - 1, 0);
  if (n <= 0) return false;
  buffer[n] = '\0';
  return true;
}

}  // namespace

bool read_schedstat(int fd, SchedStat* out) {
  char text[96];
  if (!read_text(fd, text, sizeof text)) return false;
  char* end = nullptr;
  out->cpu_ns = std::strtoull(text, &end, 10);
  out->delay_ns = std::strtoull(end, &end, 10);
  out->switches = std::strtoull(end, &end, 10);
  return true;
}

bool read_state_letter(int fd, char* state) {
  char text[512];
  if (!read_text(fd, text, sizeof text)) return false;
  // "TID (COMM) S ...": COMM may hold spaces and parentheses; the last ')' ends it.
  const char* close = std::strrchr(text, ')');
  if (close == nullptr || close[1] != ' ' || close[2] == '\0') return false;
  *state = close[2];
  return true;
}

bool read_syscall(int fd, Whereabouts* out) {
  char text[256];
  if (!read_text(fd, text, sizeof text)) return false;
  if (std::strncmp(text, "running", 7) == 0) {
    out->running = true;
    return true;
  }
  // "NR ARG1 .. ARG6 SP PC", or "-1 SP PC" outside a system call.
  char* cursor = text;
  out->call = std::strtol(cursor, &cursor, 10);
  uint64_t words[8];
  int count = 0;
  while (count < 8) {
    char* next = nullptr;
    const uint64_t word = std::strtoull(cursor, &next, 16);
    if (next == cursor) break;
    words[count++] = word;
    cursor = next;
  }
  if (count < 2) return false;
  out->sp = words[count - 2];
  out->pc = words[count - 1];
  return true;
}

int open_task_file(int task_dir, uint32_t tid, const char* name) {
  char path[64];
  if (task_dir >= 0) {
    std::snprintf(path, sizeof path, "%u/%s", tid, name);
    return openat(task_dir, path, O_RDONLY | O_CLOEXEC);
  }
  std::snprintf(path, sizeof path, "/proc/self/task/%u/%s", tid, name);
  return open(path, O_RDONLY | O_CLOEXEC);
}

bool thread_cpu_clock_ns(uint32_t tid, uint64_t* ns) {
  // The kernel's encoding of a thread's CPU-time clock (MAKE_THREAD_CPUCLOCK
  // with CPUCLOCK_SCHED): any thread of the same process may read it.
  constexpr unsigned kPerThread = 4, kSched = 2;
  const auto clock = static_cast<clockid_t>((~tid << 3) | kPerThread | kSched);
  timespec at{};
  if (clock_gettime(clock, &at) != 0) return false;
  *ns = static_cast<uint64_t>(at.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(at.tv_nsec);
  return true;
}

namespace {
std::atomic<int> g_self_pid{0};
}  // namespace

int self_pid() {
  int pid = g_self_pid.load(std::memory_order_relaxed);
  if (pid == 0) g_self_pid.store(pid = getpid(), std::memory_order_relaxed);
  return pid;
}

void forget_self_pid() { g_self_pid.store(0, std::memory_order_relaxed); }

}  // namespace lumen::states
