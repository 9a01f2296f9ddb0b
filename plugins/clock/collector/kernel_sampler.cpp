#include "kernel_sampler.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace lumen::clock {

namespace {

constexpr size_t kPage = 4096;
// Two data pages: a few deep kernel chains. A thread that spent longer in
// one system call than they hold loses the chains they have no room for
// (the kernel counts them lost); its time is still weighed by its rusage.
constexpr size_t kDataPages = 2;

perf_event_attr task_clock_attr(int64_t interval_ns) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_TASK_CLOCK;
  attr.sample_period = static_cast<uint64_t>(interval_ns);
  attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
  attr.exclude_callchain_user = 1;  // the handler unwinds the user stack itself
  attr.exclude_hv = 1;
  return attr;
}

int open_counter(perf_event_attr& attr, pid_t tid) {
  return static_cast<int>(syscall(SYS_perf_event_open, &attr, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

int read_paranoia() {
  const int fd = static_cast<int>(syscall(SYS_openat, AT_FDCWD, "/proc/sys/kernel/perf_event_paranoid", O_RDONLY | O_CLOEXEC));
  if (fd < 0) return -100;
  char text[16] = {};
  const ssize_t n = syscall(SYS_read, fd, text, sizeof text - 1);
  syscall(SYS_close, fd);
  return n > 0 ? std::atoi(text) : -100;
}

// Copies `bytes` from the ring's data area at `offset` (which may wrap).
void copy_out(const char* data, size_t size, uint64_t offset, void* out, size_t bytes) {
  const size_t at = static_cast<size_t>(offset % size);
  const size_t first = bytes < size - at ? bytes : size - at;
  std::memcpy(out, data + at, first);
  if (first < bytes) std::memcpy(static_cast<char*>(out) + first, data, bytes - first);
}

struct ArmRequest {
  int64_t interval_ns;
  pid_t tid;
  size_t ring_bytes;
};

// The counter of thread `tid`, opened, mapped and closed: its mapping's
// address, or -1 with errno.
long open_mapped_counter(void* argument) {
  const auto& request = *static_cast<const ArmRequest*>(argument);
  perf_event_attr attr = task_clock_attr(request.interval_ns);
  const int fd = open_counter(attr, request.tid);
  if (fd < 0) return -1;
  const long ring = syscall(SYS_mmap, nullptr, request.ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  const int error = errno;
  syscall(SYS_close, fd);  // the mapping holds the counter from here on
  errno = error;
  return ring == reinterpret_cast<long>(MAP_FAILED) ? -1 : ring;
}

// A counter like the threads' opened and closed at once: 0, or -1 with errno.
long probe_counter(void* argument) {
  perf_event_attr attr = task_clock_attr(*static_cast<const int64_t*>(argument));
  attr.disabled = 1;
  const int fd = open_counter(attr, 0);
  if (fd < 0) return -1;
  syscall(SYS_close, fd);
  return 0;
}

}  // namespace

void kernel_frames_obstacle(int64_t interval_ns, long (*run_elsewhere)(long (*work)(void*), void* argument),
                            char* why, size_t why_size) {
  why[0] = '\0';
  long probed = -1;
  if (run_elsewhere != nullptr) probed = run_elsewhere(probe_counter, &interval_ns);
  if (run_elsewhere == nullptr || (probed == -1 && errno == ENOTSUP)) probed = probe_counter(&interval_ns);
  if (probed == 0) return;
  const int error = errno;
  if (error == EACCES || error == EPERM) {
    const int paranoia = read_paranoia();
    if (paranoia != -100)
      std::snprintf(why, why_size,
                    "/proc/sys/kernel/perf_event_paranoid is %d: the kernel's call chains need 1 or less "
                    "(or CAP_PERFMON)",
                    paranoia);
    else
      std::snprintf(why, why_size, "the kernel refuses perf events of this process (%s)", std::strerror(error));
  } else {
    std::snprintf(why, why_size, "perf events are not available here (%s)", std::strerror(error));
  }
}

bool arm_kernel_sampler(KernelSampler& sampler, int64_t interval_ns, pid_t tid,
                        long (*run_elsewhere)(long (*work)(void*), void* argument)) {
  sampler = KernelSampler{nullptr, 0, false};
  ArmRequest request{interval_ns, tid, (1 + kDataPages) * kPage};
  long ring = -1;
  if (run_elsewhere != nullptr) ring = run_elsewhere(open_mapped_counter, &request);
  if (run_elsewhere == nullptr || (ring == -1 && errno == ENOTSUP)) ring = open_mapped_counter(&request);
  if (ring == -1) return false;
  sampler.ring = reinterpret_cast<char*>(ring);
  sampler.ring_bytes = request.ring_bytes;
  sampler.armed = true;
  return true;
}

void disarm_kernel_sampler(KernelSampler& sampler) {
  if (!sampler.armed) return;
  sampler.armed = false;
  syscall(SYS_munmap, sampler.ring, sampler.ring_bytes);
  sampler.ring = nullptr;
}

uint64_t kernel_samples_end(const KernelSampler& sampler) {
  if (!sampler.armed) return 0;
  return __atomic_load_n(&reinterpret_cast<perf_event_mmap_page*>(sampler.ring)->data_head, __ATOMIC_ACQUIRE);
}

size_t visit_kernel_samples(const KernelSampler& sampler, uint64_t end, void (*visit)(const KernelSample&, void*),
                            void* context, uint64_t* lost) {
  if (!sampler.armed) return 0;
  const auto* meta = reinterpret_cast<const perf_event_mmap_page*>(sampler.ring);
  const char* data = sampler.ring + kPage;
  const size_t size = kDataPages * kPage;
  uint64_t at = meta->data_tail;
  size_t samples = 0;
  KernelSample sample;
  while (at + sizeof(perf_event_header) <= end) {
    perf_event_header header;
    copy_out(data, size, at, &header, sizeof header);
    if (header.size < sizeof header || at + header.size > end) break;
    if (header.type == PERF_RECORD_SAMPLE && header.size >= sizeof header + 2 * sizeof(uint64_t)) {
      uint64_t nr = 0;
      copy_out(data, size, at + sizeof header + sizeof(uint64_t), &nr, sizeof nr);  // after the IP
      const uint64_t room = (header.size - sizeof header - 2 * sizeof(uint64_t)) / sizeof(uint64_t);
      if (nr > room) nr = room;
      sample.in_kernel = (header.misc & PERF_RECORD_MISC_CPUMODE_MASK) == PERF_RECORD_MISC_KERNEL;
      sample.frame_count = 0;
      for (uint64_t i = 0; sample.in_kernel && i < nr && sample.frame_count < kMaxKernelFrames; ++i) {
        uint64_t pc;
        copy_out(data, size, at + sizeof header + (2 + i) * sizeof(uint64_t), &pc, sizeof pc);
        if (pc >= static_cast<uint64_t>(PERF_CONTEXT_MAX)) continue;  // a context marker
        sample.frames[sample.frame_count++] = pc;
      }
      visit(sample, context);
      ++samples;
    } else if (header.type == PERF_RECORD_LOST && lost != nullptr &&
               header.size >= sizeof header + 2 * sizeof(uint64_t)) {
      uint64_t dropped = 0;
      copy_out(data, size, at + sizeof header + sizeof(uint64_t), &dropped, sizeof dropped);
      *lost += dropped;
    }
    at += header.size;
  }
  return samples;
}

void consume_kernel_samples(KernelSampler& sampler, uint64_t end) {
  if (!sampler.armed) return;
  __atomic_store_n(&reinterpret_cast<perf_event_mmap_page*>(sampler.ring)->data_tail, end, __ATOMIC_RELEASE);
}

}  // namespace lumen::clock
