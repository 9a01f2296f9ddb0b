// A stack profile: the events of one or more experiments that pass a filter,
// aggregated per unique stack first and then attributed once per unique
// stack to functions and to load objects. The unique stacks stay available
// (with their function frames) for the views that need more than functions:
// calltree, lines, PCs, source and disassembly. With `inline_frames`,
// functions inlined at a PC are frames of their own, callees of the
// function that holds them. Stacks are as `mode` shows them (view_mode.h):
// the same events, so the same totals, in every mode.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "experiment.h"
#include "metric_engine.h"
#include "metric_registry.h"
#include "program_structure.h"
#include "stack_aggregate.h"
#include "view_mode.h"

namespace lumen::analysis {

// Selects unique stacks by their functions (leaf first); empty accepts all.
using StackFilter = std::function<bool(std::span<const FunctionId> frames_leaf_first)>;
// Rewrites a stack's functions (leaf first) after the stack filter, before
// attribution: -object_hide folds an object's functions into one.
using FrameRewrite = std::function<void(std::vector<FunctionId>& frames_leaf_first)>;

inline constexpr NodeId kTotalObjectNode = UINT32_MAX;

struct UniqueStack {
  uint32_t experiment = 0;
  uint32_t epoch = 0;
  uint64_t stack_id = 0;
  uint32_t first_frame = 0;  // into StackProfile::frames()
  uint32_t depth = 0;        // function frames, leaf first
  uint32_t chain = 0;        // the stitches that shaped it (view_mode.h), 0: none
};

// One thread's share: its events and their summed values.
struct ThreadTotals {
  uint64_t events = 0;
  Values values;
};

// One thread's share of one unique stack (exports label samples by thread).
struct StackThreadShare {
  uint32_t stack = 0;  // index into StackProfile::stacks()
  uint32_t thread_id = 0;
  uint64_t events = 0;
};

class StackProfile {
 public:
  StackProfile(const std::vector<std::unique_ptr<Experiment>>& experiments, const MetricRegistry& registry,
          ProgramStructure& structure, const EventFilter& filter, const StackFilter& stack_filter = {},
          bool inline_frames = false, ViewMode mode = ViewMode::User, const FrameRewrite& rewrite = {},
          const ProfileObserver* observer = nullptr, const TimeWindow& window = {});
  // The same profile from events summed already (event_cells.h), their
  // chains those of `shaper`'s view mode.
  StackProfile(const StackAggregate& aggregate, std::shared_ptr<StackShaper> shaper, const MetricRegistry& registry,
               ProgramStructure& structure, const StackFilter& stack_filter = {}, const FrameRewrite& rewrite = {});

  // The unique stack (index into stacks()) an entry of the pass (what the
  // observer was given) became; kDroppedRow when the stack filter dropped it.
  static constexpr uint32_t kDroppedRow = UINT32_MAX;
  uint32_t stack_of_entry(uint32_t entry) const {
    return entry < stack_of_entry_.size() ? stack_of_entry_[entry] : kDroppedRow;
  }

  const MetricEngine& functions() const { return functions_; }
  const MetricEngine& objects() const { return objects_; }  // node = ObjectId; <Total> = kTotalObjectNode
  uint64_t events() const { return events_; }
  uint64_t unique_stacks() const { return stacks_.size(); }
  // The stitches covering an event of `thread_id` at `time_ns` (UniqueStack.chain).
  uint32_t chain_at(size_t experiment, uint32_t thread_id, uint64_t time_ns) const {
    return shaper_->chain_at(experiment, thread_id, time_ns);
  }
  // Events decoded before any filter, and how many of them knew their CPU.
  uint64_t events_read() const { return events_read_; }
  uint64_t events_with_cpu() const { return events_with_cpu_; }

  // The unique stacks that passed both filters, with their values.
  const std::vector<UniqueStack>& stacks() const { return stacks_; }
  std::span<const int64_t> values(size_t stack_index) const {
    return {values_.data() + stack_index * metric_count_, metric_count_};
  }
  std::span<const FunctionId> frames(const UniqueStack& s) const { return {frames_.data() + s.first_frame, s.depth}; }
  // The stack's frames with their PCs as the profile's mode shapes them,
  // hidden frames in their places (view_mode.h): what the code-level views
  // place at instructions and lines. Shaped anew on each call.
  void shaped_frames(const UniqueStack& s, std::vector<ShapedFrame>& out) const {
    shaper_->shaped_frames(s.experiment, s.epoch, s.stack_id, s.chain, out);
  }
  size_t metric_count() const { return metric_count_; }

  // (experiment, kernel thread id) -> what its selected events hold.
  const std::map<std::pair<uint32_t, uint32_t>, ThreadTotals>& threads() const { return threads_; }

  // Each unique stack's values per thread: they add up to values(stack).
  const std::vector<StackThreadShare>& stack_threads() const { return stack_threads_; }
  std::span<const int64_t> stack_thread_values(size_t share) const {
    return {stack_thread_values_.data() + share * metric_count_, metric_count_};
  }

 private:
  // Attributes the aggregate's rows that pass the stack filter.
  void attribute(const StackAggregate& aggregate, ProgramStructure& structure, const StackFilter& stack_filter,
                 const FrameRewrite& rewrite, bool observed);

  size_t metric_count_;
  std::shared_ptr<StackShaper> shaper_;
  MetricEngine functions_;
  MetricEngine objects_;
  uint64_t events_ = 0;
  uint64_t events_read_ = 0;
  uint64_t events_with_cpu_ = 0;
  std::vector<UniqueStack> stacks_;
  std::vector<int64_t> values_;
  std::vector<FunctionId> frames_;
  std::map<std::pair<uint32_t, uint32_t>, ThreadTotals> threads_;
  std::vector<StackThreadShare> stack_threads_;
  std::vector<int64_t> stack_thread_values_;
  std::vector<uint32_t> stack_of_entry_;
};

}  // namespace lumen::analysis
