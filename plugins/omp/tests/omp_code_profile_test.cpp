// The line and PC profile of a real OpenMP experiment (stitches and folds
// in the other modes) in machine mode is what it was before view modes
// reached the code-level views: every recorded PC of each unique stack,
// exclusive at a leaf the program ran, inclusive once per distinct address
// and line, the call sites of inlined code holding it too. The reference
// below is that placement, kept here to compare with; with inline frames
// on too, since inlined functions add frames of the PCs they share.
#include <gtest/gtest.h>
#include <lumen/record_format.h>
#include <stdlib.h>

#include <algorithm>

#include "analysis_plugins.h"
#include "code_profile.h"
#include "experiment_metrics.h"
#include "lumen_commands.h"
#include "stack_profile.h"

namespace lumen::test {
namespace {

using namespace analysis;

struct RecordedCode {
  std::map<CodeProfile::AddressKey, CodeMetrics> addresses;
  std::map<LineKey, CodeMetrics> lines;
};

void add(Values& into, std::span<const int64_t> values) {
  if (into.empty()) into.assign(values.size(), 0);
  for (size_t m = 0; m < values.size(); ++m) into[m] += values[m];
}

RecordedCode recorded_code(const StackProfile& profile, const std::vector<std::unique_ptr<Experiment>>& experiments,
                           ProgramStructure& structure) {
  RecordedCode code;
  for (size_t s = 0; s < profile.stacks().size(); ++s) {
    const UniqueStack& stack = profile.stacks()[s];
    const Experiment& experiment = *experiments[stack.experiment];
    const uint64_t recorded = experiment.recorded_stack(stack.stack_id);
    const bool leaf_recorded = recorded == stack.stack_id;
    const auto pcs = experiment.stacks().pcs(recorded);
    const uint32_t flags = experiment.stacks().flags(recorded);
    std::vector<CodeProfile::AddressKey> seen_addresses;
    std::vector<LineKey> seen_lines;
    for (size_t i = 0; i < pcs.size(); ++i) {
      const bool is_return = i > 0 || (flags & LUMEN_STACK_LEAF_IS_RETURN) != 0;
      const auto address = structure.code_address(experiment.loadobjects(), stack.epoch, pcs[i], is_return);
      const FunctionId function = structure.function_at(experiment.loadobjects(), stack.epoch, pcs[i], is_return);
      // Code only the experiment names (the kernel's functions, with -k on
      // by default): its function's address, no line, nothing inlined.
      const Function& described = structure.function(function);
      const uint64_t described_at = pcs[i] - (is_return ? 1 : 0);
      const bool in_described = !address && function != kUnknownFunction && described.size > 0 &&
                                described_at >= described.start && described_at - described.start < described.size;
      if (!address && !in_described) continue;
      const CodeProfile::AddressKey key =
          address ? CodeProfile::AddressKey{address->object, address->address}
                  : CodeProfile::AddressKey{described.object, described_at};
      CodeMetrics& at = code.addresses[key];
      at.function = function;
      if (i == 0 && leaf_recorded) add(at.exclusive, profile.values(s));
      if (std::find(seen_addresses.begin(), seen_addresses.end(), key) == seen_addresses.end()) {
        seen_addresses.push_back(key);
        add(at.inclusive, profile.values(s));
      }
      // The PC's line is the innermost inlined function's; each function
      // it was inlined into holds it at the call's line.
      static const std::vector<InlinedFrame> no_chain;
      const auto& chain =
          address ? structure.inlined_at(experiment.loadobjects(), stack.epoch, pcs[i], is_return) : no_chain;
      const auto place = [&](const LineKey& line_key, FunctionId function, bool exclusive) {
        CodeMetrics& in_line = code.lines[line_key];
        if (in_line.function == kUnknownFunction) in_line.function = function;
        if (exclusive) add(in_line.exclusive, profile.values(s));
        if (std::find(seen_lines.begin(), seen_lines.end(), line_key) == seen_lines.end()) {
          seen_lines.push_back(line_key);
          add(in_line.inclusive, profile.values(s));
        }
      };
      const ObjectSymbols* symbols = address ? structure.symbols(address->object) : nullptr;
      const auto line = symbols != nullptr ? symbols->source_line(address->address) : std::nullopt;
      const FunctionId line_function = chain.empty() ? at.function : chain.front().function;
      // Code without line information is at its function's line of no file.
      if (line) place({line->file, line->line}, line_function, i == 0 && leaf_recorded);
      else place({"", 0, line_function}, line_function, i == 0 && leaf_recorded);
      for (size_t k = 0; k < chain.size(); ++k)
        if (chain[k].call_site.line > 0)
          place({chain[k].call_site.file, chain[k].call_site.line},
                k + 1 < chain.size() ? chain[k + 1].function : at.function, false);
    }
  }
  return code;
}

template <typename Key>
void expect_same(const std::map<Key, CodeMetrics>& shaped, const std::map<Key, CodeMetrics>& recorded,
                 const char* what) {
  ASSERT_EQ(shaped.size(), recorded.size()) << what;
  auto it = recorded.begin();
  for (const auto& [key, metrics] : shaped) {
    ASSERT_TRUE(key == it->first) << what;
    EXPECT_EQ(metrics.exclusive, it->second.exclusive) << what;
    EXPECT_EQ(metrics.inclusive, it->second.inclusive) << what;
    EXPECT_EQ(metrics.function, it->second.function) << what;
    ++it;
  }
}

struct ActiveWaitPolicy {
  ActiveWaitPolicy() { setenv("OMP_WAIT_POLICY", "active", 1); }
  ~ActiveWaitPolicy() { unsetenv("OMP_WAIT_POLICY"); }
};

class MachineModeCode : public testing::TestWithParam<const char*> {};

TEST_P(MachineModeCode, IsEveryRecordedPc) {
  TempDir dir;
  ActiveWaitPolicy policy;
  const Collection run = collect(dir, {"-p", "on"}, GetParam());
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  const AnalysisPlugins plugins = AnalysisPlugins::load(LUMEN_TEST_PLUGIN_DIR, {}, {});
  std::vector<std::unique_ptr<Experiment>> experiments;
  experiments.push_back(std::make_unique<Experiment>(run.experiment, plugins));
  MetricRegistry registry;
  register_metrics(*experiments.back(), registry);
  for (const bool inline_frames : {false, true}) {
    ProgramStructure structure;
    const StackProfile machine(experiments, registry, structure, {}, {}, inline_frames, ViewMode::Machine);
    const CodeProfile code(machine, experiments, structure);
    const RecordedCode recorded = recorded_code(machine, experiments, structure);
    ASSERT_GE(recorded.lines.size(), 5u);  // not a vacuous comparison
    // The program's own lines among them, not only a system library's (a
    // machine with libc's debug files has those whatever the program has).
    EXPECT_TRUE(std::any_of(recorded.lines.begin(), recorded.lines.end(), [](const auto& line) {
      return line.first.file.ends_with("omp_target.c");
    })) << "no line of omp_target.c was recorded";
    expect_same(code.addresses(), recorded.addresses, inline_frames ? "addresses, inline on" : "addresses");
    expect_same(code.lines(), recorded.lines, inline_frames ? "lines, inline on" : "lines");
    // The user mode's view of the same events differs (the runtime's PCs
    // are gone), with the same total.
    const StackProfile user(experiments, registry, structure, {}, {}, inline_frames, ViewMode::User);
    const CodeProfile user_code(user, experiments, structure);
    EXPECT_EQ(user_code.total(), code.total());
    EXPECT_LT(user_code.addresses().size(), code.addresses().size());
  }
}

const char* const kTargets[] = {LUMEN_OMP_TARGET,
#ifdef LUMEN_OMP_CLANG_TARGET
                                LUMEN_OMP_CLANG_TARGET
#endif
};

INSTANTIATE_TEST_SUITE_P(Runtimes, MachineModeCode, testing::ValuesIn(kTargets),
                         [](const testing::TestParamInfo<const char*>& info) {
                           return info.index == 0 ? std::string("libgomp") : std::string("libomp");
                         });

}  // namespace
}  // namespace lumen::test
