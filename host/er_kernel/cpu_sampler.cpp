#include "cpu_sampler.h"

#include <linux/perf_event.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

namespace lumen::kernel {

namespace {

constexpr size_t kDataPages = 128;  // per CPU: 512 KiB, some 2,000 deep call chains

int perf_event_open(perf_event_attr* attr, pid_t pid, int cpu) {
  return static_cast<int>(syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

std::string read_first_line(const char* path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

// "0-3,5" -> {0, 1, 2, 3, 5}.
std::vector<int> online_cpus() {
  std::vector<int> cpus;
  std::stringstream list(read_first_line("/sys/devices/system/cpu/online"));
  for (std::string range; std::getline(list, range, ',');) {
    if (range.empty()) continue;
    const size_t dash = range.find('-');
    const int first = std::stoi(range.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(range.substr(dash + 1));
    for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
  }
  if (cpus.empty())
    for (long cpu = 0; cpu < sysconf(_SC_NPROCESSORS_ONLN); ++cpu) cpus.push_back(static_cast<int>(cpu));
  return cpus;
}

perf_event_attr sampling_attributes(uint64_t interval_ns) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof attr);
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  attr.sample_period = interval_ns;
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
                     PERF_SAMPLE_CALLCHAIN;
  attr.disabled = 1;
  attr.mmap = 1;   // executable mappings,
  attr.mmap2 = 1;  // in the form with their file offset
  attr.comm = 1;
  attr.comm_exec = 1;
  attr.task = 1;  // forks and exits
  attr.sample_id_all = 1;
  attr.use_clockid = 1;
  attr.clockid = CLOCK_MONOTONIC;
  attr.watermark = 1;
  attr.wakeup_watermark = static_cast<uint32_t>(kDataPages * 4096 / 4);
  return attr;
}

}  // namespace

std::string refusal_reason(int error) {
  if (error == EACCES || error == EPERM) {
    const std::string paranoid = read_first_line("/proc/sys/kernel/perf_event_paranoid");
    return std::string(std::strerror(error)) + ": profiling every CPU needs root or CAP_PERFMON, or " +
           "kernel.perf_event_paranoid at 0 or below (it is " + (paranoid.empty() ? "unreadable" : paranoid) +
           "; sysctl -w kernel.perf_event_paranoid=0)";
  }
  if (error == ENOENT || error == ENOSYS || error == EOPNOTSUPP)
    return std::string(std::strerror(error)) + ": this kernel has no perf events for the CPU clock";
  return std::strerror(error);
}

CpuSampler::CpuSampler(uint64_t interval_ns) : interval_ns_(interval_ns) {
  perf_event_attr attr = sampling_attributes(interval_ns);
  const long page = sysconf(_SC_PAGESIZE);
  try {
    for (const int cpu : online_cpus()) {
      Ring ring;
      ring.cpu = cpu;
      ring.fd = perf_event_open(&attr, -1, cpu);
      if (ring.fd < 0)
        throw SamplerError("cannot sample CPU " + std::to_string(cpu) + ": " + refusal_reason(errno));
      ring.mapping_bytes = static_cast<size_t>(page) * (1 + kDataPages);
      ring.mapping = mmap(nullptr, ring.mapping_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, ring.fd, 0);
      if (ring.mapping == MAP_FAILED) {
        const int error = errno;
        close(ring.fd);
        throw SamplerError("cannot map CPU " + std::to_string(cpu) + "'s sample buffer: " + std::strerror(error));
      }
      rings_.push_back(ring);
    }
  } catch (...) {
    close_all();
    throw;
  }
}

CpuSampler::~CpuSampler() { close_all(); }

void CpuSampler::close_all() {
  for (Ring& ring : rings_) {
    if (ring.mapping != nullptr && ring.mapping != MAP_FAILED) munmap(ring.mapping, ring.mapping_bytes);
    if (ring.fd >= 0) close(ring.fd);
  }
  rings_.clear();
}

void CpuSampler::enable() {
  for (const Ring& ring : rings_) ioctl(ring.fd, PERF_EVENT_IOC_ENABLE, 0);
}

void CpuSampler::disable() {
  for (const Ring& ring : rings_) ioctl(ring.fd, PERF_EVENT_IOC_DISABLE, 0);
}

void CpuSampler::wait(int timeout_ms, int also) {
  std::vector<pollfd> fds;
  for (const Ring& ring : rings_) fds.push_back({ring.fd, POLLIN, 0});
  if (also >= 0) fds.push_back({also, POLLIN, 0});
  poll(fds.data(), fds.size(), timeout_ms);
}

void CpuSampler::drain(std::vector<RawPerfRecord>& out) {
  for (Ring& ring : rings_) drain_ring(ring, out);
}

void CpuSampler::drain_ring(Ring& ring, std::vector<RawPerfRecord>& out) {
  auto* control = static_cast<perf_event_mmap_page*>(ring.mapping);
  // Kernels before 4.1 leave data_offset and data_size 0: the data then
  // follows the first page.
  static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  const uint64_t size = control->data_size != 0 ? control->data_size : page * kDataPages;
  const auto* data = static_cast<const uint8_t*>(ring.mapping) + (control->data_size != 0 ? control->data_offset : page);
  const uint64_t head = __atomic_load_n(&control->data_head, __ATOMIC_ACQUIRE);
  uint64_t tail = control->data_tail;
  while (tail + sizeof(perf_event_header) <= head) {
    perf_event_header header;
    for (size_t i = 0; i < sizeof header; ++i)
      reinterpret_cast<uint8_t*>(&header)[i] = data[(tail + i) % size];
    if (header.size < sizeof header) {  // not a record: nothing after it can be read
      tail = head;
      break;
    }
    if (tail + header.size > head) break;
    RawPerfRecord record;
    record.bytes.resize(header.size);
    const uint64_t at = tail % size;
    const uint64_t first = std::min<uint64_t>(header.size, size - at);
    std::memcpy(record.bytes.data(), data + at, first);
    std::memcpy(record.bytes.data() + first, data, header.size - first);
    out.push_back(std::move(record));
    tail += header.size;
  }
  __atomic_store_n(&control->data_tail, tail, __ATOMIC_RELEASE);
}

}  // namespace lumen::kernel
