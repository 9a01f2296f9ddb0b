#include "cpu_wide_counters.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "counter_encoding.h"

namespace lumen::hwc {

namespace {

// Fixed storage: a handler reads it, and nothing is allocated after start.
constexpr size_t kMaxCpus = 1024;
int g_fds[kMaxCounters][kMaxCpus];
size_t g_fd_count[kMaxCounters];

}  // namespace

std::string open_cpu_wide(uint32_t index, const perf_event_attr& attr, const std::vector<int>& cpus) {
  if (index >= kMaxCounters || cpus.empty() || cpus.size() > kMaxCpus) return "no CPU to count on";
  g_fd_count[index] = 0;
  for (const int cpu : cpus) {
    const int fd = open_counter_on_cpu(attr, cpu);
    if (fd < 0) {
      const std::string problem = "perf_event_open on CPU " + std::to_string(cpu) + ": " + std::strerror(errno);
      close_cpu_wide(index);
      return problem;
    }
    g_fds[index][g_fd_count[index]++] = fd;
  }
  for (size_t i = 0; i < g_fd_count[index]; ++i) ioctl(g_fds[index][i], PERF_EVENT_IOC_ENABLE, 0);
  return "";
}

bool read_cpu_wide(uint32_t index, uint64_t* value) {
  if (index >= kMaxCounters || g_fd_count[index] == 0) return false;
  uint64_t sum = 0;
  for (size_t i = 0; i < g_fd_count[index]; ++i) {
    uint64_t count = 0;
    if (read(g_fds[index][i], &count, sizeof count) != static_cast<ssize_t>(sizeof count)) return false;
    sum += count;
  }
  *value = sum;
  return true;
}

void close_cpu_wide(uint32_t index) {
  if (index >= kMaxCounters) return;
  for (size_t i = 0; i < g_fd_count[index]; ++i) {
    ioctl(g_fds[index][i], PERF_EVENT_IOC_DISABLE, 0);
    close(g_fds[index][i]);
  }
  g_fd_count[index] = 0;
}

void forget_cpu_wide(uint32_t index) {
  if (index >= kMaxCounters) return;
  for (size_t i = 0; i < g_fd_count[index]; ++i) close(g_fds[index][i]);
  g_fd_count[index] = 0;
}

}  // namespace lumen::hwc
