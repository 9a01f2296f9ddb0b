// One process image's share of a system-wide recording, written as a
// sub-experiment of the recording (_pid1234.er, after an exec _pid1234_x1.er):
// its clock samples in the clock plugin's records, its stacks (kernel frames
// leaf-most, then the user frames), its executable mappings as load
// objects, and the kernel functions its stacks touched as described code of
// the objects <Kernel> and each module. er_print reads it as it reads
// collect's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "block_file.h"
#include "collection_plan.h"
#include "experiment_header.h"
#include "kernel_symbols.h"
#include "mapped_file.h"

namespace lumen::kernel {

// A frame no code holds, described as <IDLE>: the stack of an idle CPU.
inline constexpr uint64_t kIdleFrame = 0xffffffffffffe000ull;
inline constexpr const char* kIdleFunction = "<IDLE>";

struct LiveMapping {
  uint64_t time_ns = 0;
  uint64_t start = 0, end = 0, load_bias = 0;
  std::string path;
};

class ProcessImage {
 public:
  ProcessImage(std::filesystem::path directory, metadata::ProcessFacts facts);

  // Both write the record at once when the image's experiment exists, and
  // keep the mapping for it otherwise (created at its first sample).
  void map(const LiveMapping& mapping, MappedFiles& files);
  // `stack` leaf first; `truncated` when the kernel's call chain was cut.
  void sample(uint32_t tid, uint64_t time_ns, int cpu, uint64_t user_ns, uint64_t system_ns,
              const std::vector<uint64_t>& stack, bool truncated, const KernelSymbols& kernel, MappedFiles& files);

  // Writes the header (with `end` when the image's ending is known), what
  // the stacks touched of the kernel, and sample points at the recording's
  // start and at `end_ns` (its end), which place every process on one time
  // axis; nothing when it never sampled.
  // `exited`: the kernel reported its exit (at end_ns), its status unknown.
  void finish(const metadata::CollectionPlan& plan, const metadata::ProcessEnd* end, uint64_t end_ns,
              bool exited = false);

  const std::vector<LiveMapping>& mappings() const { return live_; }
  const metadata::ProcessFacts& facts() const { return facts_; }
  void set_command(std::vector<std::string> command) { facts_.command = std::move(command); }
  bool recorded() const { return files_open_; }
  uint64_t samples() const { return samples_; }

 private:
  void open_files(MappedFiles& files);
  void write_mapping(const LiveMapping& mapping, MappedFiles& files);
  uint64_t stack_id(const std::vector<uint64_t>& stack, bool truncated);

  std::filesystem::path directory_;
  metadata::ProcessFacts facts_;
  std::vector<LiveMapping> live_;
  bool files_open_ = false;
  std::optional<BlockFile> profile_, stacks_, loadobjects_;
  std::unordered_map<std::string, uint64_t> stack_ids_;  // a stack's frames as bytes -> its id
  std::set<const KernelFunction*> kernel_functions_;
  bool idle_ = false;
  uint64_t samples_ = 0;
  uint64_t user_ns_ = 0, system_ns_ = 0;  // what its samples stand for
};

}  // namespace lumen::kernel
