#include "view_mode.h"

#include <lumen/record_format.h>

#include <algorithm>
#include <iostream>

namespace lumen::analysis {

namespace {

constexpr size_t kMaxStitchDepth = 64;

struct Declared {
  uint64_t begin;
  uint64_t end;
  uint32_t stitch;  // interned id
};

}  // namespace

std::optional<ViewMode> parse_view_mode(const std::string& word) {
  if (word == "user") return ViewMode::User;
  if (word == "expert") return ViewMode::Expert;
  if (word == "machine") return ViewMode::Machine;
  return std::nullopt;
}

const char* view_mode_name(ViewMode mode) {
  switch (mode) {
    case ViewMode::User: return "user";
    case ViewMode::Expert: return "expert";
    case ViewMode::Machine: return "machine";
  }
  return "user";
}

Stitches::Stitches(const std::vector<std::unique_ptr<Experiment>>& experiments, ViewMode mode)
    : segments_(experiments.size()), chains_(experiments.size()) {
  const uint32_t mode_bit = 1u << static_cast<unsigned>(mode);
  for (size_t e = 0; e < experiments.size(); ++e) {
    // Equal stitches (every instance of one region) are one, so that their
    // events share unique stacks.
    std::map<Stitch, uint32_t> interned;
    std::vector<Stitch> stitches;
    std::unordered_map<uint32_t, std::vector<Declared>> by_thread;
    const Experiment::StitchVisitor collect = [&](const DataFile&, const lumen_stitch& s) {
      if ((s.modes & mode_bit) == 0 || s.end_ns <= s.begin_ns) return;
      Stitch stitch{s.anchor_pc, s.parent_stack_id, s.leaf != nullptr ? s.leaf : ""};
      const auto [it, inserted] = interned.try_emplace(stitch, static_cast<uint32_t>(stitches.size()));
      if (inserted) stitches.push_back(std::move(stitch));
      by_thread[s.thread_id].push_back({s.begin_ns, s.end_ns, it->second});
    };
    for (const DataFile& file : experiments[e]->data_files())
      if (file.half->descriptor->declares_stitches)
        experiments[e]->for_each_event_in(file, [](const DataFile&, const lumen_event&) {}, &collect);
    std::map<std::vector<uint32_t>, uint32_t> chain_ids;
    size_t too_deep = 0;
    for (auto& [thread, declared] : by_thread) {
      // Outer before inner where they begin together; where they cover the
      // same time, the one declared first is outer.
      std::stable_sort(declared.begin(), declared.end(), [](const Declared& a, const Declared& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
      });
      std::vector<uint64_t> points;
      for (const Declared& d : declared) points.insert(points.end(), {d.begin, d.end});
      std::sort(points.begin(), points.end());
      points.erase(std::unique(points.begin(), points.end()), points.end());
      std::vector<const Declared*> active;  // outermost first
      std::vector<Segment>& segments = segments_[e][thread];
      size_t next = 0;
      for (const uint64_t point : points) {
        std::erase_if(active, [point](const Declared* d) { return d->end <= point; });
        for (; next < declared.size() && declared[next].begin <= point; ++next) {
          // Chains are stored whole, so deep nesting costs its square: a
          // data file declaring thousands of nested stitches is not a program.
          if (active.size() < kMaxStitchDepth) active.push_back(&declared[next]);
          else ++too_deep;
        }
        std::vector<uint32_t> key;
        for (auto it = active.rbegin(); it != active.rend(); ++it) key.push_back((*it)->stitch);
        uint32_t chain = 0;
        if (!key.empty()) {
          const auto [found, inserted] = chain_ids.try_emplace(key, static_cast<uint32_t>(chains_[e].size() + 1));
          if (inserted) {
            std::vector<Stitch> list;
            for (const uint32_t id : key) list.push_back(stitches[id]);
            chains_[e].push_back(std::move(list));
          }
          chain = found->second;
        }
        if (segments.empty() || segments.back().chain != chain) segments.push_back({point, chain});
      }
    }
    if (too_deep > 0)
      std::cerr << "er_print: " << experiments[e]->path().string() << ": " << too_deep
                << " stack rewrites nested deeper than " << kMaxStitchDepth << " were left out\n";
  }
}

uint32_t Stitches::chain_at(size_t experiment, uint32_t thread_id, uint64_t time_ns) const {
  const auto& threads = segments_[experiment];
  if (threads.empty()) return 0;
  const auto found = threads.find(thread_id);
  if (found == threads.end()) return 0;
  const auto& segments = found->second;
  const auto after = std::upper_bound(segments.begin(), segments.end(), time_ns,
                                      [](uint64_t t, const Segment& s) { return t < s.begin; });
  return after == segments.begin() ? 0 : std::prev(after)->chain;
}

StackShaper::StackShaper(const std::vector<std::unique_ptr<Experiment>>& experiments, ProgramStructure& structure,
                         ViewMode mode, bool inline_frames)
    : experiments_(experiments),
      structure_(structure),
      mode_(mode),
      inline_frames_(inline_frames),
      stitches_(experiments, mode) {}

bool StackShaper::append_recorded(const Experiment& experiment, uint32_t epoch, uint64_t stack_id,
                                  std::vector<ShapedFrame>& out) {
  if (is_artificial_stack(stack_id)) {
    out.push_back({.function = structure_.artificial_function(experiment.artificial_function(stack_id))});
    return false;
  }
  if (is_traced_call_stack(stack_id)) {
    // The traced call's own frame: its function's entry, no instruction
    // the program ran.
    const Experiment::TracedCall& call = experiment.traced_call(stack_id);
    const auto [function, pc] = structure_.traced_function(experiment.loadobjects(), epoch, call.function);
    out.push_back({.function = function, .pc = pc});
    stack_id = call.stack_id;
  }
  const auto pcs = experiment.stacks().pcs(stack_id);
  const uint32_t flags = experiment.stacks().flags(stack_id);
  for (size_t i = 0; i < pcs.size(); ++i) {
    const bool is_return = i > 0 || (flags & LUMEN_STACK_LEAF_IS_RETURN) != 0;
    if (inline_frames_)
      for (const InlinedFrame& inlined : structure_.inlined_at(experiment.loadobjects(), epoch, pcs[i], is_return))
        out.push_back({.function = inlined.function, .pc = pcs[i], .is_return = is_return, .code = true, .inlined = true});
    out.push_back({.function = structure_.function_at(experiment.loadobjects(), epoch, pcs[i], is_return),
                   .pc = pcs[i],
                   .is_return = is_return,
                   .code = true});
  }
  return (flags & LUMEN_STACK_TRUNCATED) != 0;
}

void StackShaper::fold(const Experiment& experiment, std::vector<ShapedFrame>& frames) {
  std::vector<lumen_view_frame> view;
  std::vector<size_t> visible;  // index into frames of each frame the plugin sees
  std::vector<lumen_folded_frame> folded;
  for (const DataFile& file : experiment.data_files()) {
    const lumen_fold_stack fold_stack = file.half->descriptor->fold_stack;
    if (fold_stack == nullptr) continue;
    view.clear();
    visible.clear();
    for (size_t i = 0; i < frames.size(); ++i) {
      if (frames[i].hidden) continue;
      const Function& f = structure_.function(frames[i].function);
      view.push_back({frames[i].pc, f.long_name.empty() ? f.name.c_str() : f.long_name.c_str(),
                      structure_.object(f.object).name.c_str()});
      visible.push_back(i);
    }
    if (view.empty()) continue;
    folded.assign(view.size() + 1, lumen_folded_frame{-1, nullptr});
    const size_t count =
        std::min(fold_stack(static_cast<lumen_view_mode>(mode_), view.data(), view.size(), folded.data()),
                 folded.size());
    // Frames the plugin leaves out stay where they were, hidden: the
    // code-level views still place their PCs.
    std::vector<ShapedFrame> shaped;
    size_t next = 0;  // the first frame not placed yet
    const auto hide_up_to = [&](size_t end) {
      for (; next < end; ++next) {
        shaped.push_back(frames[next]);
        shaped.back().hidden = true;
      }
    };
    for (size_t i = 0; i < count; ++i) {
      const lumen_folded_frame& f = folded[i];
      if (f.frame >= 0 && static_cast<size_t>(f.frame) < visible.size()) {
        const size_t at = visible[static_cast<size_t>(f.frame)];
        hide_up_to(at);
        shaped.push_back(frames[at]);
        next = std::max(next, at + 1);
      } else if (f.frame < 0 && f.artificial != nullptr) {
        shaped.push_back({.function = structure_.artificial_function(f.artificial)});
      }
    }
    hide_up_to(frames.size());
    frames = std::move(shaped);
  }
}

bool StackShaper::shape(size_t experiment_index, uint32_t epoch, uint64_t stack_id, uint32_t chain,
                        std::vector<ShapedFrame>& frames) {
  const Experiment& experiment = *experiments_[experiment_index];
  frames.clear();
  bool truncated = append_recorded(experiment, epoch, stack_id, frames);
  if (chain != 0) {
    // Where the next stitch's anchor is looked for: after a stitch continued
    // the stack with another, in that other stack's frames only (the call
    // of a nested region, made in its parent region's body).
    size_t search_from = 0;
    for (const Stitch& stitch : stitches_.chain(experiment_index, chain)) {
      std::vector<ShapedFrame> rest;
      if (stitch.anchor_pc == LUMEN_STITCH_KEEP_FRAMES) {
        if (!stitch.leaf.empty()) {
          frames.insert(frames.begin(), ShapedFrame{.function = structure_.artificial_function(stitch.leaf)});
          ++search_from;
        }
        continue;  // the next outer stitch applies too
      }
      if (stitch.anchor_pc != 0) {
        const FunctionId anchor = structure_.function_at(experiment.loadobjects(), epoch, stitch.anchor_pc, false);
        const auto at = std::find_if(frames.begin() + static_cast<std::ptrdiff_t>(std::min(search_from, frames.size())),
                                     frames.end(), [&](const ShapedFrame& f) { return f.function == anchor; });
        if (at == frames.end()) continue;  // not in the region's body: as recorded
        rest.assign(frames.begin(), at + 1);
      } else if (!stitch.leaf.empty()) {
        rest.push_back({.function = structure_.artificial_function(stitch.leaf)});
      }
      search_from = rest.size();
      truncated = false;
      if (stitch.parent_stack_id != LUMEN_NO_STACK)
        truncated = append_recorded(experiment, epoch, stitch.parent_stack_id, rest);
      frames = std::move(rest);
      // The next outer stitch may continue the stack just appended.
    }
  }
  fold(experiment, frames);
  return truncated;
}

void StackShaper::frames(size_t experiment_index, uint32_t epoch, uint64_t stack_id, uint32_t chain,
                         std::vector<FunctionId>& out) {
  std::vector<ShapedFrame> frames;
  const bool truncated = shape(experiment_index, epoch, stack_id, chain, frames);
  out.clear();
  for (const ShapedFrame& frame : frames)
    if (!frame.hidden) out.push_back(frame.function);
  if (out.empty()) out.push_back(kUnknownFunction);
  if (truncated) out.push_back(kTruncatedFunction);
}

}  // namespace lumen::analysis
