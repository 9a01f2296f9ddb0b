#include "kernel_symbols.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

namespace lumen::kernel {

namespace {

constexpr uint64_t kLongestFunction = uint64_t{1} << 20;  // the last symbol of a region ends within this

bool is_text(char type) { return type == 't' || type == 'T' || type == 'w' || type == 'W'; }

}  // namespace

void KernelSymbols::read(std::istream& in) {
  functions_.clear();
  bool any = false;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string address, type, name, module;
    if (!(fields >> address >> type >> name) || type.size() != 1) continue;
    fields >> module;
    any = true;
    if (!is_text(type[0])) continue;
    const uint64_t start = std::strtoull(address.c_str(), nullptr, 16);
    if (start == 0) continue;
    std::string object = kKernelObject;
    if (module.size() > 2 && module.front() == '[' && module.back() == ']') object = module.substr(1, module.size() - 2);
    functions_.push_back({start, 0, name, object, std::isupper(static_cast<unsigned char>(type[0])) != 0});
  }
  hidden_ = any && functions_.empty();
  std::stable_sort(functions_.begin(), functions_.end(),
                   [](const KernelFunction& a, const KernelFunction& b) { return a.start < b.start; });
  // Aliases share a start: the first global one listed names it (the
  // system call's __x64_sys_getpid rather than its body __do_sys_getpid),
  // else the first listed; a 32-bit entry (__ia32_sys_getpid) of the same
  // code names it only when nothing else does.
  const auto rank = [](const KernelFunction& f) { return (f.global ? 2 : 0) + (f.name.starts_with("__ia32_") ? 0 : 1); };
  std::vector<KernelFunction> named;
  for (KernelFunction& f : functions_) {
    if (!named.empty() && named.back().start == f.start) {
      if (rank(f) > rank(named.back())) named.back() = std::move(f);
      continue;
    }
    named.push_back(std::move(f));
  }
  functions_ = std::move(named);
  for (size_t i = 0; i < functions_.size(); ++i) {
    const uint64_t limit = functions_[i].start + kLongestFunction;
    const bool next_is_near = i + 1 < functions_.size() && functions_[i + 1].start < limit &&
                              functions_[i + 1].object == functions_[i].object;
    functions_[i].end = next_is_near ? functions_[i + 1].start : functions_[i].start + 4096;
  }
}

void KernelSymbols::read_running_kernel() {
  std::ifstream in("/proc/kallsyms");
  read(in);
}

const KernelFunction* KernelSymbols::find(uint64_t pc) const {
  auto after = std::upper_bound(functions_.begin(), functions_.end(), pc,
                                [](uint64_t value, const KernelFunction& f) { return value < f.start; });
  if (after == functions_.begin()) return nullptr;
  const KernelFunction& f = *std::prev(after);
  return pc < f.end ? &f : nullptr;
}

}  // namespace lumen::kernel
