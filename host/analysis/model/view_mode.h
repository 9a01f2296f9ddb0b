// View modes (-viewmode user|expert|machine): the stacks of events as each
// mode shows them. Plugins drive the rewriting (analysis_plugin.h,
// lumen_view_mode): their decoders declare stitches over intervals of a
// thread's time, and their fold_stack says which frames a mode keeps. The
// core applies both, once per unique stack, and knows no plugin's frames.
#pragma once

#include <lumen/analysis_plugin.h>

#include <compare>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "experiment.h"
#include "program_structure.h"

namespace lumen::analysis {

enum class ViewMode { User = LUMEN_VIEW_USER, Expert = LUMEN_VIEW_EXPERT, Machine = LUMEN_VIEW_MACHINE };

std::optional<ViewMode> parse_view_mode(const std::string& word);
const char* view_mode_name(ViewMode mode);

struct Stitch {
  uint64_t anchor_pc = 0;
  uint64_t parent_stack_id = LUMEN_NO_STACK;
  std::string leaf;  // empty: none
  auto operator<=>(const Stitch&) const = default;
};

// The stitches every experiment's plugins declare for one mode, as
// segments of each thread's time; each segment has the chain of stitches
// covering it, innermost first.
class Stitches {
 public:
  Stitches(const std::vector<std::unique_ptr<Experiment>>& experiments, ViewMode mode);

  // The chain covering `time_ns` on the thread; 0 when none does.
  uint32_t chain_at(size_t experiment, uint32_t thread_id, uint64_t time_ns) const;
  // Whether any stitch covers a thread of the experiment (else every chain is 0).
  bool any_in(size_t experiment) const { return !segments_[experiment].empty(); }
  // Chain ids count from 1.
  const std::vector<Stitch>& chain(size_t experiment, uint32_t id) const { return chains_[experiment][id - 1]; }

 private:
  struct Segment {
    uint64_t begin;
    uint32_t chain;  // 0: none from here on
  };
  std::vector<std::unordered_map<uint32_t, std::vector<Segment>>> segments_;  // [experiment][thread]
  std::vector<std::vector<std::vector<Stitch>>> chains_;                      // [experiment][id - 1]
};

// A frame of a stack as a mode shapes it, with what the code-level views
// (lines, instructions) need of it.
struct ShapedFrame {
  FunctionId function = kUnknownFunction;
  uint64_t pc = 0;         // as recorded; 0 for an artificial function
  bool is_return = false;  // the PC follows a call: the call is what ran
  bool code = false;       // an instruction of the program's: no artificial function, no traced call's own frame
  bool inlined = false;    // a function inlined at the PC; the frame after it holds the PC
  bool hidden = false;     // a frame the mode does not show (kept in its place for code-level views)
};

// The function frames (leaf first) of one recorded stack, as a mode shows
// it: recorded frames (with inlined functions when asked), stitched, then
// folded by every plugin of the experiment that folds.
class StackShaper {
 public:
  StackShaper(const std::vector<std::unique_ptr<Experiment>>& experiments, ProgramStructure& structure,
              ViewMode mode, bool inline_frames);

  uint32_t chain_at(size_t experiment, uint32_t thread_id, uint64_t time_ns) const {
    return stitches_.chain_at(experiment, thread_id, time_ns);
  }
  bool stitches_in(size_t experiment) const { return stitches_.any_in(experiment); }
  void frames(size_t experiment, uint32_t epoch, uint64_t stack_id, uint32_t chain, std::vector<FunctionId>& out);
  // The same stack with its PCs, and the frames the mode hides left in
  // their places, marked hidden (no <Truncated-stack> or <Unknown> added).
  void shaped_frames(size_t experiment, uint32_t epoch, uint64_t stack_id, uint32_t chain,
                     std::vector<ShapedFrame>& out) {
    shape(experiment, epoch, stack_id, chain, out);
  }

 private:
  // Returns whether the stack was truncated.
  bool shape(size_t experiment, uint32_t epoch, uint64_t stack_id, uint32_t chain, std::vector<ShapedFrame>& out);
  // Appends a recorded stack's frames; returns whether it was truncated.
  bool append_recorded(const Experiment& experiment, uint32_t epoch, uint64_t stack_id, std::vector<ShapedFrame>& out);
  void fold(const Experiment& experiment, std::vector<ShapedFrame>& frames);

  const std::vector<std::unique_ptr<Experiment>>& experiments_;
  ProgramStructure& structure_;
  ViewMode mode_;
  bool inline_frames_;
  Stitches stitches_;
};

}  // namespace lumen::analysis
