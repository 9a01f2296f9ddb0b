// Collapsed stacks, as FlameGraph's stackcollapse scripts write them: one
// line per unique stack of functions, root first, and the first exported
// metric's value in its own unit (nanoseconds, a count, bytes). Stacks of
// different PCs in the same functions are one line.
#include <map>
#include <ostream>

#include "export_formats.h"
#include "export_frames.h"

namespace lumen::exporting {

namespace {

// ';' separates frames and the last ' ' the value: a name keeps its
// spaces ("operator new(unsigned long)") but not a semicolon.
std::string folded_frame(const std::string& name) {
  std::string out = name;
  for (char& c : out)
    if (c == ';' || c == '\n') c = ':';
  return out;
}

}  // namespace

void write_folded(const ExportInput& input, std::ostream& out) {
  const size_t metric = input.metrics.front();
  std::map<std::string, int64_t> lines;
  const auto& stacks = input.profile.stacks();
  for (size_t s = 0; s < stacks.size(); ++s) {
    const int64_t value = input.profile.values(s)[metric];
    if (value == 0) continue;
    const auto frames = input.profile.frames(stacks[s]);
    std::string line;
    for (size_t i = frames.size(); i-- > 0;) {
      if (!line.empty()) line += ';';
      line += folded_frame(function_name(input, frames[i]));
    }
    lines[line] += value;
  }
  for (const auto& [stack, value] : lines) out << stack << ' ' << value << '\n';
}

}  // namespace lumen::exporting
