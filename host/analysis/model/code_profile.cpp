#include "code_profile.h"

#include <lumen/record_format.h>

#include <algorithm>

namespace lumen::analysis {

namespace {

void add(Values& into, std::span<const int64_t> values) {
  if (into.empty()) into.assign(values.size(), 0);
  for (size_t m = 0; m < values.size(); ++m) into[m] += values[m];
}

}  // namespace

CodeProfile::CodeProfile(const StackProfile& profile, const std::vector<std::unique_ptr<Experiment>>& experiments,
                         ProgramStructure& structure)
    : total_(profile.functions().total()) {
  std::map<AddressKey, std::optional<LineKey>> line_cache;
  std::vector<AddressKey> seen_addresses;
  std::vector<LineKey> seen_lines;
  for (size_t s = 0; s < profile.stacks().size(); ++s) {
    const UniqueStack& stack = profile.stacks()[s];
    const Experiment& experiment = *experiments[stack.experiment];
    // A traced call's own frame (its leaf) is no instruction of the
    // program's: its callers' lines hold its value inclusively only.
    const uint64_t recorded = experiment.recorded_stack(stack.stack_id);
    const bool leaf_recorded = recorded == stack.stack_id;
    const auto pcs = experiment.stacks().pcs(recorded);
    const uint32_t flags = experiment.stacks().flags(recorded);
    const auto values = profile.values(s);
    seen_addresses.clear();
    seen_lines.clear();
    for (size_t i = 0; i < pcs.size(); ++i) {
      const bool is_return = i > 0 || (flags & LUMEN_STACK_LEAF_IS_RETURN) != 0;
      const auto code = structure.code_address(experiment.loadobjects(), stack.epoch, pcs[i], is_return);
      if (!code) continue;
      const AddressKey key{code->object, code->address};
      CodeMetrics& at = addresses_[key];
      // The function that holds the code (frames may also list inlined ones).
      at.function = structure.function_at(experiment.loadobjects(), stack.epoch, pcs[i], is_return);
      if (i == 0 && leaf_recorded) add(at.exclusive, values);
      if (std::find(seen_addresses.begin(), seen_addresses.end(), key) == seen_addresses.end()) {
        seen_addresses.push_back(key);
        add(at.inclusive, values);
      }
      auto [cached, inserted] = line_cache.try_emplace(key);
      if (inserted) {
        const ObjectSymbols* symbols = structure.symbols(code->object);
        if (symbols != nullptr)
          if (const auto line = symbols->source_line(code->address)) cached->second = LineKey{line->file, line->line};
      }
      if (!cached->second) continue;
      CodeMetrics& line = lines_[*cached->second];
      if (line.function == kUnknownFunction) line.function = at.function;
      if (i == 0 && leaf_recorded) add(line.exclusive, values);
      if (std::find(seen_lines.begin(), seen_lines.end(), *cached->second) == seen_lines.end()) {
        seen_lines.push_back(*cached->second);
        add(line.inclusive, values);
      }
    }
  }
}

}  // namespace lumen::analysis
