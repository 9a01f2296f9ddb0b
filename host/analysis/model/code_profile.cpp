#include "code_profile.h"

#include <algorithm>
#include <set>

#include "progress.h"
#include "metric_sum.h"

namespace lumen::analysis {

namespace {

void add(Values& into, std::span<const int64_t> values) {
  if (into.empty()) into.assign(values.size(), 0);
  add_values(into.data(), values.data(), values.size());
}

}  // namespace

CodeProfile::CodeProfile(const StackProfile& profile, const std::vector<std::unique_ptr<Experiment>>& experiments,
                         ProgramStructure& structure)
    : total_(profile.functions().total()) {
  std::map<AddressKey, std::optional<LineKey>> line_cache;
  const auto line_of = [&](const AddressKey& key) -> const LineKey* {
    auto [cached, inserted] = line_cache.try_emplace(key);
    if (inserted) {
      const ObjectSymbols* symbols = structure.symbols(key.first);
      if (symbols != nullptr)
        if (const auto line = symbols->source_line(key.second)) cached->second = LineKey{line->file, line->line};
    }
    return cached->second ? &*cached->second : nullptr;
  };
  std::set<LineKey> described_lines;  // the lines of described code, where Position points
  std::set<LineKey> unlined;          // each function's code without line information
  struct Position {
    AddressKey address;
    const LineKey* line;  // nullptr: none
    bool described = false;  // code a decoder described, not a loaded object's
  };
  struct Placed {
    AddressKey address;
    const LineKey* line;
    FunctionId function;       // whose code the address is
    FunctionId line_function;  // whose line it is: the innermost function inlined there
    bool exclusive;
    bool line_only = false;  // a call site of inlined code: its line, not the address
  };
  std::set<LineKey> call_site_lines;  // where Placed points for call sites
  const std::vector<InlinedFrame> no_chain;
  std::vector<ShapedFrame> frames;
  std::vector<Placed> placed;
  std::vector<size_t> next_shown;  // per frame: the index of the next shown frame outward (frames.size(): none)
  std::vector<AddressKey> seen_addresses;
  std::vector<LineKey> seen_lines;
  Progress progress("finding source lines");  // one look-up per distinct PC
  for (size_t s = 0; s < profile.stacks().size(); ++s) {
    if (s % 4096 == 0) progress.update(s, profile.stacks().size());
    const UniqueStack& stack = profile.stacks()[s];
    const Experiment& experiment = *experiments[stack.experiment];
    const LoadObjectMap& map = experiment.loadobjects();
    // An instruction of a loaded object, at its DWARF line; else code a
    // decoder described (a Java method), at the line it gave.
    const auto position_of = [&](const ShapedFrame& frame) -> std::optional<Position> {
      if (!frame.code) return std::nullopt;
      if (const auto code = structure.code_address(map, stack.epoch, frame.pc, frame.is_return)) {
        const AddressKey key{code->object, code->address};
        return Position{key, line_of(key)};
      }
      const DescribedCode* described = experiment.described_code().find(frame.pc);
      if (described == nullptr) {
        // Code only named by the experiment (the kernel's functions, a
        // module's): its address, no line.
        const Function& f = structure.function(frame.function);
        const uint64_t address = frame.pc - (frame.is_return ? 1 : 0);
        if (frame.function == kUnknownFunction || f.size == 0 || address < f.start || address - f.start >= f.size)
          return std::nullopt;
        return Position{{f.object, address}, nullptr, true};
      }
      const uint64_t address = frame.pc - (frame.is_return && !described->exact_call_sites ? 1 : 0);
      Position position{{structure.function(frame.function).object, address}, nullptr, true};
      described_.try_emplace(frame.function, described);
      if (!described->source_file.empty())
        if (const int line = described->line_at(address); line > 0)
          position.line = &*described_lines.insert(LineKey{described->source_file, line}).first;
      return position;
    };
    profile.shaped_frames(stack, frames);
    // The frames whose instructions count, leaf first. Exclusive goes to
    // the first one when no shown frame comes before it: a traced call's
    // own frame or an artificial function at the leaf holds its time at
    // no instruction. Functions inlined at a PC count with the frame
    // holding it. A frame the mode hides counts when it is code of the
    // source file of the next frame the mode shows (the body a compiler
    // outlined keeps the lines of the function it came from), as part of
    // that frame's function; other hidden frames (a runtime's, described
    // code's) do not.
    next_shown.assign(frames.size(), frames.size());
    for (size_t i = frames.size(); i-- > 1;)
      next_shown[i - 1] = !frames[i].hidden && !frames[i].inlined ? i : next_shown[i];
    placed.clear();
    bool leaf = true;
    for (size_t i = 0; i < frames.size(); ++i) {
      const ShapedFrame& frame = frames[i];
      if (frame.inlined) continue;
      const bool exclusive = leaf;
      if (!frame.hidden) leaf = false;
      const auto position = position_of(frame);
      if (!position) continue;
      FunctionId function = frame.function;
      if (frame.hidden) {
        // Described code the mode hides (a compiled Java method's machine
        // code) has its shown frame beside it (the method's own, at its
        // bytecode index): it would count twice.
        if (next_shown[i] == frames.size() || position->described) continue;
        const ShapedFrame* shown = &frames[next_shown[i]];
        const auto shown_position = position_of(*shown);
        if (!shown_position) continue;
        if (!position->line || !shown_position->line || position->line->file != shown_position->line->file) continue;
        function = shown->function;
        leaf = false;
      }
      // Inlined code: its line is the innermost inlined function's, and
      // each function it was inlined into holds it at its call site.
      const std::vector<InlinedFrame>& chain =
          position->described ? no_chain : structure.inlined_at(map, stack.epoch, frame.pc, frame.is_return);
      placed.push_back({position->address, position->line, function, chain.empty() ? function : chain.front().function,
                        exclusive});
      for (size_t k = 0; k < chain.size(); ++k) {
        if (chain[k].call_site.line <= 0) continue;
        const FunctionId caller = k + 1 < chain.size() ? chain[k + 1].function : function;
        const LineKey* site = &*call_site_lines.insert(LineKey{chain[k].call_site.file, chain[k].call_site.line}).first;
        placed.push_back({position->address, site, function, caller, false, true});
      }
    }
    const auto values = profile.values(s);
    seen_addresses.clear();
    seen_lines.clear();
    for (const Placed& p : placed) {
      if (!p.line_only) {
        CodeMetrics& at = addresses_[p.address];
        at.function = p.function;
        if (p.exclusive) add(at.exclusive, values);
        if (std::find(seen_addresses.begin(), seen_addresses.end(), p.address) == seen_addresses.end()) {
          seen_addresses.push_back(p.address);
          add(at.inclusive, values);
        }
      }
      const LineKey* line_key = p.line;
      if (line_key == nullptr) {
        if (p.line_only) continue;
        line_key = &*unlined.insert(LineKey{"", 0, p.line_function}).first;
      }
      CodeMetrics& line = lines_[*line_key];
      if (line.function == kUnknownFunction) line.function = p.line_function;
      if (p.exclusive) add(line.exclusive, values);
      if (std::find(seen_lines.begin(), seen_lines.end(), *line_key) == seen_lines.end()) {
        seen_lines.push_back(*line_key);
        add(line.inclusive, values);
      }
    }
  }
}

}  // namespace lumen::analysis
