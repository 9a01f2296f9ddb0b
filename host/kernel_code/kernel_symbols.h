// The running kernel's functions from /proc/kallsyms: each text symbol's
// start, its end (the next symbol's start) and its object, "<Kernel>" for
// the kernel's own code and the module's name for a module's. Read while
// recording, so a module unloaded later is still named.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace lumen::kernel {

inline constexpr const char* kKernelObject = "<Kernel>";

struct KernelFunction {
  uint64_t start = 0;
  uint64_t end = 0;
  std::string name;
  std::string object;
  bool global = false;  // a global symbol (T, W)
};

class KernelSymbols {
 public:
  // Reads kallsyms' lines from `in`. Addresses all zero (kernel.kptr_restrict
  // hides them from this user) leave the table empty, with hidden() true.
  void read(std::istream& in);
  void read_running_kernel();  // /proc/kallsyms

  // The function holding `pc`, or nullptr.
  const KernelFunction* find(uint64_t pc) const;
  size_t size() const { return functions_.size(); }
  bool hidden() const { return hidden_; }

 private:
  std::vector<KernelFunction> functions_;  // ascending start
  bool hidden_ = false;
};

}  // namespace lumen::kernel
