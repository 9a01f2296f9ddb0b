// The experiment's call stacks by id, as read from its "stacks" file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace lumen::analysis {

class StackStore {
 public:
  // Reads `file`; a missing file is an empty store.
  void load(const std::filesystem::path& file);

  // Program counters leaf first; empty when the id is unknown.
  std::span<const uint64_t> pcs(uint64_t stack_id) const;
  uint32_t flags(uint64_t stack_id) const;
  size_t size() const { return stacks_.size(); }

 private:
  struct Stack {
    uint64_t first = 0;
    uint32_t depth = 0;
    uint32_t flags = 0;
  };
  std::vector<Stack> stacks_;  // by id; depth 0 where an id was never written
  std::vector<uint64_t> pcs_;
};

}  // namespace lumen::analysis
