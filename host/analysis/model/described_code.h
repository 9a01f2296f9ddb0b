// Generated code described by a plugin's decoder (lumen_code_description):
// the source file and lines of code addresses no loaded object holds, such
// as a managed runtime's methods. One table per experiment.
#pragma once

#include <lumen/analysis_plugin.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lumen::analysis {

struct DescribedCode {
  uint64_t start = 0;
  uint64_t end = 0;
  std::string source_file;  // as the decoder gave it; empty when unknown
  std::vector<std::pair<uint64_t, int>> lines;  // (first address, line), ascending
  bool exact_call_sites = false;
  // (address, text), ascending: the instructions; with machine code, notes
  // on the machine instructions from each address to the next ("bci 12").
  std::vector<std::pair<uint64_t, std::string>> instructions;
  std::vector<uint8_t> machine_code;  // the first bytes of [start, end), as recorded
  uint32_t machine = 0;               // ELF e_machine of machine_code

  // The line of the code at `address`, 0 when none.
  int line_at(uint64_t address) const;
  // The note (with machine code) or instruction text holding `address`,
  // empty when none.
  const std::string& text_at(uint64_t address) const;
};

class DescribedCodeTable {
 public:
  // A copy of `code`, checked: nullopt when its range is empty or its
  // lines are out of order (a damaged record says nothing of its code).
  static std::optional<DescribedCode> copy_of(const lumen_code_description& code);
  // Replaces any description of the same start.
  void add(DescribedCode code);
  // The code holding `address`, or nullptr.
  const DescribedCode* find(uint64_t address) const;
  bool empty() const { return by_start_.empty(); }

 private:
  std::map<uint64_t, DescribedCode> by_start_;
};

}  // namespace lumen::analysis
