// System-wide clock sampling: one perf_event_open per CPU (the cpu-clock
// software event, an hrtimer that fires whatever runs, idle included),
// each sample carrying its kernel and user call chain, pid, tid, time
// (CLOCK_MONOTONIC, lumen's clock) and CPU. The same events report the
// processes' executable mappings, names, forks and exits, so user code can
// be named after the processes are gone. Each CPU's ring buffer is drained
// into whole records; a record split at the ring's end is put together.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace lumen::kernel {

struct SamplerError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One record of the kernel's, as written in the ring (perf_event_header first).
struct RawPerfRecord {
  std::vector<uint8_t> bytes;
};

class CpuSampler {
 public:
  // Opens a disabled event on every online CPU. Throws SamplerError naming
  // the CPU, the error and, when the system forbids it, the setting to change.
  explicit CpuSampler(uint64_t interval_ns);
  ~CpuSampler();
  CpuSampler(const CpuSampler&) = delete;
  CpuSampler& operator=(const CpuSampler&) = delete;

  void enable();
  void disable();
  // Waits up to `timeout_ms` for any ring to fill past its watermark, or
  // `also` (a descriptor, -1: none) to be readable.
  void wait(int timeout_ms, int also = -1);
  // Appends every whole record now in the rings to `out`.
  void drain(std::vector<RawPerfRecord>& out);

  int cpus() const { return static_cast<int>(rings_.size()); }
  uint64_t interval_ns() const { return interval_ns_; }

 private:
  struct Ring {
    int cpu = -1;
    int fd = -1;
    void* mapping = nullptr;
    size_t mapping_bytes = 0;
  };
  void drain_ring(Ring& ring, std::vector<RawPerfRecord>& out);
  void close_all();

  uint64_t interval_ns_;
  std::vector<Ring> rings_;
};

// Why perf_event_open refused system-wide sampling, in words that name what
// to change (perf_event_paranoid, CAP_PERFMON), for `error` (an errno).
std::string refusal_reason(int error);

}  // namespace lumen::kernel
