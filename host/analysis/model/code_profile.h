// Metrics at the level of instructions and source lines: every frame of
// every unique stack of a StackProfile, as the profile's view mode shapes
// it, placed at its object and file address (return addresses moved back
// into their call), and that address at its source line. Exclusive goes to
// the leaf; inclusive once to each distinct address (and line) on the
// stack. Inlined code is at the line of the innermost function inlined
// there, and each function it was inlined into holds its inclusive metrics
// at the line of the call. Frames the mode hides count only where they are
// code of the next shown frame's source file (an outlined OpenMP body in
// user mode); artificial functions hold their time at no line. Code with no
// line information holds it at its function's line of no file, so that the
// lines add up to the total as the instructions do. Code no loaded object
// holds is placed at the lines its decoder described (a Java method's
// bytecode index at its line), at the function's own object.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "stack_profile.h"

namespace lumen::analysis {

struct CodeMetrics {
  Values exclusive;
  Values inclusive;
  FunctionId function = kUnknownFunction;
};

struct LineKey {
  std::string file;  // as DWARF names it
  int line = 0;
  // Code without line information: no file, line 0, its function's.
  FunctionId function_without_lines = kUnknownFunction;
  auto operator<=>(const LineKey&) const = default;
};

class CodeProfile {
 public:
  CodeProfile(const StackProfile& profile, const std::vector<std::unique_ptr<Experiment>>& experiments,
              ProgramStructure& structure);

  using AddressKey = std::pair<ObjectId, uint64_t>;
  const std::map<AddressKey, CodeMetrics>& addresses() const { return addresses_; }
  // Lines of code with debug information; addresses without it are only in
  // addresses().
  const std::map<LineKey, CodeMetrics>& lines() const { return lines_; }
  const Values& total() const { return total_; }
  // The description of a function of described code (a Java method) with
  // data: its source file and lines. nullptr for others (DWARF knows
  // theirs). Valid while the experiments are.
  const DescribedCode* described(FunctionId function) const {
    const auto it = described_.find(function);
    return it == described_.end() ? nullptr : it->second;
  }

 private:
  std::map<FunctionId, const DescribedCode*> described_;
  std::map<AddressKey, CodeMetrics> addresses_;
  std::map<LineKey, CodeMetrics> lines_;
  Values total_;
};

}  // namespace lumen::analysis
