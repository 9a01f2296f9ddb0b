#include "proc_reader.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
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

bool parse_schedstat(const char* text, SchedStat* out) {
  char* end = nullptr;
  out->cpu_ns = std::strtoull(text, &end, 10);
  if (end == text) return false;
  out->delay_ns = std::strtoull(end, &end, 10);
  out->switches = std::strtoull(end, &end, 10);
  return true;
}

bool parse_state_letter(const char* text, char* state) {
  // "TID (COMM) S ...": COMM may hold spaces and parentheses; the last ')' ends it.
  const char* close = std::strrchr(text, ')');
  if (close == nullptr || close[1] != ' ' || close[2] == '\0') return false;
  *state = close[2];
  return true;
}

bool parse_syscall(const char* text, Whereabouts* out) {
  if (std::strncmp(text, "running", 7) == 0) {
    out->running = true;
    return true;
  }
  // "NR ARG1 .. ARG6 SP PC", or "-1 SP PC" outside a system call.
  char* cursor = const_cast<char*>(text);
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

bool read_schedstat(int fd, SchedStat* out) {
  char text[96];
  return read_text(fd, text, sizeof text) && parse_schedstat(text, out);
}

bool read_state_letter(int fd, char* state) {
  char text[512];
  return read_text(fd, text, sizeof text) && parse_state_letter(text, state);
}

bool read_syscall(int fd, Whereabouts* out) {
  char text[256];
  return read_text(fd, text, sizeof text) && parse_syscall(text, out);
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

bool own_switches(uint64_t* switches) {
  rusage usage{};
  if (syscall(SYS_getrusage, RUSAGE_THREAD, &usage) != 0) return false;
  *switches = static_cast<uint64_t>(usage.ru_nvcsw) + static_cast<uint64_t>(usage.ru_nivcsw);
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
