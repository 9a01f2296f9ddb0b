// The heap records of the experiments a view reads, through the view host:
// each op annotated with its stack's row group (frames resolved in the
// load-object map of the op's time) and whether the user's selection takes
// it, handed on without keeping the history (heap_sweep.h).
#pragma once

#include <lumen/analysis_plugin.h>

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "heap_parts.h"
#include "heap_sweep.h"

namespace lumen::heap {

// Rows are per call stack. A stack id belongs to one experiment, and its
// frames depend on what was loaded when the allocation happened (a library
// unloaded with dlclose leaves its addresses to the next one): stacks are
// resolved once per (stack id, load-object map epoch) of their experiment,
// and told apart by their frames, so identical stacks of several
// experiments or epochs share a row.
struct StackGroup {
  std::string key;   // the frames: function and load object of each
  std::string leaf;  // the leaf's function: the row's name
  std::vector<std::string> frames;  // function, load object, function, ...
};

// What a view is told by a sweep, per experiment (numbered in reading order).
class HeapVisitor {
 public:
  virtual ~HeapVisitor() = default;
  virtual void allocated(const HeapOp&) {}
  virtual void released(const HeapOp& /*allocation*/, const HeapOp& /*by*/) {}
  virtual void unmatched(const HeapOp&) {}
  virtual void experiment_begin(uint32_t /*experiment*/) {}
  virtual void experiment_end(uint32_t /*experiment*/, const LiveSet&) {}
};

class HeapData final : public HeapRecordReader {
 public:
  explicit HeapData(const lumen_view_host& host) : host_(host) {}

  // Every op in time order, paired (two passes over the records).
  bool sweep(HeapVisitor& visitor, std::string& error);
  // The allocations live at each experiment's end, annotated, experiments
  // in reading order, each one's in time order (equal stamps: file order).
  // Read in parts on several threads, the latest event per address of each
  // (heap_latest.h), merged in file order.
  bool live_at_end(const std::function<void(const HeapOp&)>& live, std::string& error);
  // The allocations the selection takes, summed per stack as its time
  // resolves it: add(row, count, bytes) for each, in the order of its first
  // such allocation in the file. Read in parts on several threads.
  bool allocations_by_stack(const std::function<void(uint32_t group, uint64_t count, uint64_t bytes)>& add,
                            std::string& error);

  // The same sums of a count and a bytes metric of the plugin's events
  // (allocations, leaks) from what the session decoded for an earlier view
  // (lumen_view_host.stack_sums), none read again: false when it holds
  // none for the selection.
  bool sums_from_session(const char* count_metric, const char* bytes_metric,
                         const std::function<void(uint32_t group, uint64_t count, uint64_t bytes)>& add);

  const StackGroup& group(size_t index) const { return groups_[index]; }
  // The highest bytes in use of the experiment as its collector counted
  // them (the paired form's kHighest; 0: not recorded), known once sweep()
  // has indexed the records. An op whose `highest` is below it, or equal
  // with `raised_highest`, happened no later than the event that reached it.
  uint64_t highest(uint32_t experiment) const { return experiment < highest_.size() ? highest_[experiment] : 0; }
  // When collection began in the experiment (0: unknown).
  uint64_t start_ns(uint32_t experiment) const {
    return experiment < start_ns_.size() ? start_ns_[experiment] : 0;
  }

 private:
  enum class Pass { kIndex, kSweep };
  static void visit(void* self, uint16_t kind, const void* payload, uint16_t bytes, uint32_t thread_id);
  bool read(Pass pass, std::string& error);
  void start(const HeapStart& start) override;
  void op(const HeapOp& op) override;
  void batch_end() override;
  void annotate(std::vector<HeapOp>& ops);
  // Reads every part (heap_parts.h) into `parts`, in file order.
  bool read_parts(HeapPart::Keep keep, std::vector<std::unique_ptr<HeapPart>>& parts, std::string& error);
  // The row of a stack of experiment `experiment` (whose records `context`
  // is about) at `time_ns`.
  uint32_t group_at(void* context, uint32_t experiment, uint64_t stack_id, uint64_t time_ns);
  // The row of a stack of these frames, leaf first.
  uint32_t group_of_frames(const lumen_frame_name* frames, size_t count);

  struct StackAt {
    uint64_t stack_id;
    uint32_t epoch;
    uint32_t experiment;
    bool operator==(const StackAt& o) const {
      return stack_id == o.stack_id && epoch == o.epoch && experiment == o.experiment;
    }
  };
  struct StackAtHash {
    size_t operator()(const StackAt& s) const {
      return std::hash<uint64_t>()(s.stack_id * 0x9e3779b97f4a7c15ull ^ (uint64_t{s.epoch} << 32 | s.experiment));
    }
  };

  const lumen_view_host& host_;
  Pass pass_ = Pass::kIndex;
  HeapVisitor* visitor_ = nullptr;
  HeapSweep sweep_;
  // The experiment being read: a start record begins the next one.
  uint32_t experiment_ = 0;
  bool started_ = false;        // an experiment is open
  bool experiment_has_ops_ = false;
  std::vector<uint64_t> start_ns_;
  std::vector<uint64_t> highest_;  // per experiment
  std::unordered_map<uint32_t, uint64_t> thread_highest_;  // the experiment's threads' latest
  std::vector<HeapOp> batch_;   // the current batch's ops
  std::vector<StackGroup> groups_;
  std::unordered_map<std::string, uint32_t> group_by_key_;
  std::unordered_map<StackAt, uint32_t, StackAtHash> group_of_stack_;
  StackAt last_at_{LUMEN_NO_STACK, 0, UINT32_MAX};  // the last lookup, repeated by most allocations
  uint32_t last_group_ = 0;
  std::string error_;
};

}  // namespace lumen::heap
