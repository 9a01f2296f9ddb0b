#include "described_code.h"

#include <algorithm>

namespace lumen::analysis {

int DescribedCode::line_at(uint64_t address) const {
  const auto after = std::upper_bound(lines.begin(), lines.end(), address,
                                      [](uint64_t a, const std::pair<uint64_t, int>& l) { return a < l.first; });
  return after == lines.begin() ? 0 : std::prev(after)->second;
}

const std::string& DescribedCode::text_at(uint64_t address) const {
  static const std::string none;
  const auto after =
      std::upper_bound(instructions.begin(), instructions.end(), address,
                       [](uint64_t a, const std::pair<uint64_t, std::string>& i) { return a < i.first; });
  return after == instructions.begin() ? none : std::prev(after)->second;
}

std::optional<DescribedCode> DescribedCodeTable::copy_of(const lumen_code_description& code) {
  if (code.end <= code.start || (code.line_count > 0 && code.lines == nullptr)) return std::nullopt;
  DescribedCode copy;
  copy.start = code.start;
  copy.end = code.end;
  if (code.source_file != nullptr) copy.source_file = std::string(code.source_file).substr(0, 4096);
  copy.exact_call_sites = code.exact_call_sites != 0;
  copy.lines.reserve(code.line_count);
  for (size_t i = 0; i < code.line_count; ++i) {
    const lumen_code_line& line = code.lines[i];
    if (!copy.lines.empty() && line.address < copy.lines.back().first) return std::nullopt;
    copy.lines.emplace_back(line.address, std::max(line.line, 0));
  }
  if (code.instruction_count > 0 && code.instructions == nullptr) return std::nullopt;
  copy.instructions.reserve(code.instruction_count);
  for (size_t i = 0; i < code.instruction_count; ++i) {
    const lumen_code_instruction& instruction = code.instructions[i];
    if (!copy.instructions.empty() && instruction.address <= copy.instructions.back().first) return std::nullopt;
    copy.instructions.emplace_back(instruction.address,
                                   instruction.text != nullptr ? std::string(instruction.text).substr(0, 1024) : "");
  }
  if (code.machine_code_bytes > 0) {
    if (code.machine_code == nullptr || code.machine_code_bytes > code.end - code.start) return std::nullopt;
    copy.machine_code.assign(code.machine_code, code.machine_code + code.machine_code_bytes);
    copy.machine = code.machine;
  }
  return copy;
}

void DescribedCodeTable::add(DescribedCode code) {
  const uint64_t start = code.start;
  by_start_.insert_or_assign(start, std::move(code));
}

const DescribedCode* DescribedCodeTable::find(uint64_t address) const {
  auto after = by_start_.upper_bound(address);
  if (after == by_start_.begin()) return nullptr;
  const DescribedCode& code = std::prev(after)->second;
  return address < code.end ? &code : nullptr;
}

}  // namespace lumen::analysis
