// What every CPU's samples say, sorted out by process: each process image
// (a pid until it execs) becomes a sub-experiment of the recording with its
// samples, stacks and executable mappings. Processes running when the
// recording starts are read from /proc; later ones follow from the kernel's
// fork, exec and mmap records (a child starts with its parent's mappings).
// Events are handled in time order: the caller hands them over once no
// earlier one can still arrive (handle), and the rest at the end (finish).
#pragma once

#include <cstdint>
#include <filesystem>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "collection_plan.h"
#include "experiment_header.h"
#include "kernel_symbols.h"
#include "mapped_file.h"
#include "perf_records.h"
#include "process_image.h"

namespace lumen::kernel {

// The pid the kernel gives a task sampled after its pid was released.
inline constexpr uint32_t kExitingPid = UINT32_MAX;

struct RecordingTotals {
  uint64_t samples = 0;
  uint64_t idle_samples = 0;
  uint64_t lost_records = 0;
  uint64_t unparsed_records = 0;
  size_t processes = 0;  // sub-experiments written
};

class SystemRecording {
 public:
  SystemRecording(std::filesystem::path founder, metadata::CollectionPlan plan, uint64_t start_monotonic_ns,
                  long long start_wall_ns, const KernelSymbols& kernel);

  // Reads the processes running now (their command lines and mappings).
  void read_running_processes();
  // The process er_kernel started: written at the end, with its ending
  // (set_ending), when er_kernel has waited for it.
  void set_command_process(uint32_t pid) { command_pid_ = pid; }
  void set_ending(uint32_t pid, const metadata::ProcessEnd& end);

  void handle(const PerfEvent& event);
  void count_unparsed() { ++totals_.unparsed_records; }
  // Writes every image's experiment, the recording having ended at
  // `end_ns` (CLOCK_MONOTONIC). Returns what was recorded.
  RecordingTotals finish(uint64_t end_ns);

 private:
  struct Process {
    uint32_t pid = 0;
    int images = 0;  // execs seen: the next image's number
    std::unique_ptr<ProcessImage> image;
    std::vector<std::unique_ptr<ProcessImage>> done;  // replaced by an exec
  };
  Process& process(uint32_t pid, uint64_t time_ns);
  std::unique_ptr<ProcessImage> new_image(uint32_t pid, int image_number, std::vector<std::string> command);
  void on_sample(const Sample& sample);
  void on_mapping(const Mapping& mapping);
  void add_mapping(Process& p, uint64_t time_ns, uint64_t start, uint64_t end, uint64_t offset,
                   const std::string& path);
  void on_command(const Command& command);
  void on_fork(const Fork& fork);
  void on_exit(const Exit& exit);
  void finish_exited(uint64_t now_ns);

  std::filesystem::path founder_;
  metadata::CollectionPlan plan_;
  uint64_t start_monotonic_ns_;
  long long start_wall_ns_;
  const KernelSymbols& kernel_;
  MappedFiles files_;
  std::map<uint32_t, Process> processes_;
  std::map<uint32_t, metadata::ProcessEnd> endings_;
  std::deque<std::pair<uint32_t, uint64_t>> exited_;  // (pid, exit time), in time order
  uint32_t command_pid_ = 0;
  RecordingTotals totals_;
  std::vector<uint64_t> stack_;  // reused
};

// A process's command line from /proc (its arguments); with none (a kernel
// thread, or a process already gone) "[name]" when `kernel_thread_name`,
// else nothing.
std::vector<std::string> command_line_of(uint32_t pid, bool kernel_thread_name = true);

}  // namespace lumen::kernel
