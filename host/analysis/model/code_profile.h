// Metrics at the level of instructions and source lines: every frame of
// every unique stack of a Profile placed at its object and file address
// (return addresses moved back into their call), and that address at its
// source line. Exclusive goes to the leaf; inclusive once to each distinct
// address (and line) on the stack.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "profile.h"

namespace lumen::analysis {

struct CodeMetrics {
  Values exclusive;
  Values inclusive;
  FunctionId function = kUnknownFunction;
};

struct LineKey {
  std::string file;  // as DWARF names it
  int line = 0;
  auto operator<=>(const LineKey&) const = default;
};

class CodeProfile {
 public:
  CodeProfile(const Profile& profile, const std::vector<std::unique_ptr<Experiment>>& experiments,
              ProgramStructure& structure);

  using AddressKey = std::pair<ObjectId, uint64_t>;
  const std::map<AddressKey, CodeMetrics>& addresses() const { return addresses_; }
  // Lines of code with debug information; addresses without it are only in
  // addresses().
  const std::map<LineKey, CodeMetrics>& lines() const { return lines_; }
  const Values& total() const { return total_; }

 private:
  std::map<AddressKey, CodeMetrics> addresses_;
  std::map<LineKey, CodeMetrics> lines_;
  Values total_;
};

}  // namespace lumen::analysis
