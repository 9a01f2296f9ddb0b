// The kernel's sampling records (linux/perf_event.h), as CpuSampler asks
// for them (sample_id_all, so side-band records carry pid, tid, time and
// CPU too), read into plain structs. A record too short for what its kind
// holds is no record: parse returns nothing for it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "cpu_sampler.h"

namespace lumen::kernel {

struct Sample {
  uint32_t pid = 0, tid = 0;
  uint64_t time_ns = 0;
  uint32_t cpu = 0;
  uint64_t period_ns = 0;
  bool in_kernel = false;             // where the CPU was when sampled
  std::vector<uint64_t> kernel_pcs;   // leaf first
  std::vector<uint64_t> user_pcs;     // leaf first
};

struct Mapping {  // an executable mapping of a file (PERF_RECORD_MMAP2)
  uint32_t pid = 0, tid = 0;
  uint64_t time_ns = 0;
  uint64_t start = 0, length = 0, file_offset = 0;
  std::string path;
};

struct Command {  // PERF_RECORD_COMM: a thread's name, and whether an exec set it
  uint32_t pid = 0, tid = 0;
  uint64_t time_ns = 0;
  bool exec = false;
  std::string name;
};

struct Fork {
  uint32_t pid = 0, parent_pid = 0, tid = 0;
  uint64_t time_ns = 0;
};

struct Exit {
  uint32_t pid = 0, tid = 0;
  uint64_t time_ns = 0;
};

struct Lost {  // records the kernel could not write: the ring was full
  uint64_t count = 0;
  uint64_t time_ns = 0;
};

using PerfEvent = std::variant<Sample, Mapping, Command, Fork, Exit, Lost>;

std::optional<PerfEvent> parse(const RawPerfRecord& record);

uint64_t time_of(const PerfEvent& event);

}  // namespace lumen::kernel
