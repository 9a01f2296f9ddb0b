#include "kernel_symbols.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <iterator>
#include <string_view>

namespace lumen::kernel {

namespace {

constexpr uint64_t kLongestFunction = uint64_t{1} << 20;  // the last symbol of a region ends within this

bool is_text(char type) { return type == 't' || type == 'T' || type == 'w' || type == 'W'; }

}  // namespace

void KernelSymbols::read(std::istream& in) {
  // Some 100,000 lines: split by hand (a string stream a line costs more
  // than reading the file).
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  functions_.clear();
  bool any = false;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + at, end - at);
    at = end + 1;
    // "ADDRESS TYPE NAME[\t[MODULE]]"
    const size_t first_space = line.find(' ');
    if (first_space == std::string_view::npos || first_space + 3 > line.size() || line[first_space + 2] != ' ')
      continue;
    const char type = line[first_space + 1];
    std::string_view rest = line.substr(first_space + 3);
    const size_t tab = rest.find_first_of("\t ");
    const std::string_view name = rest.substr(0, tab);
    std::string_view module = tab == std::string_view::npos ? std::string_view() : rest.substr(tab + 1);
    while (!module.empty() && (module.front() == ' ' || module.front() == '\t')) module.remove_prefix(1);
    if (name.empty()) continue;
    any = true;
    if (!is_text(type)) continue;
    const uint64_t start = std::strtoull(std::string(line.substr(0, first_space)).c_str(), nullptr, 16);
    if (start == 0) continue;
    std::string object = kKernelObject;
    if (module.size() > 2 && module.front() == '[' && module.back() == ']') object = module.substr(1, module.size() - 2);
    functions_.push_back({start, 0, std::string(name), std::move(object), std::isupper(static_cast<unsigned char>(type)) != 0});
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
