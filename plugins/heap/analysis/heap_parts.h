// The heap records read in parts (lumen_view_host.for_each_record_in_parts),
// several parts at once on er_print's analysis threads: what each part keeps
// for -leaks (the latest event per address) or -allocs (the selected
// allocations per stack), merged afterwards in file order (heap_data.h), so
// the views read what one pass over the records would.
#pragma once

#include <lumen/analysis_plugin.h>

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "heap_latest.h"
#include "heap_timeline.h"

namespace lumen::heap {

class HeapPart final : public HeapRecordReader {
 public:
  enum class Keep { kLatest, kAllocations };

  // Allocations the selection takes, per stack as its time resolves it.
  struct StackSum {
    uint64_t stack_id;
    uint32_t epoch;
    uint64_t first_time_ns;  // of its first allocation: a time of that epoch
    uint64_t count = 0;
    uint64_t bytes = 0;
  };

  HeapPart(const lumen_view_host& host, const lumen_record_part& part, Keep keep)
      : host_(host), context_(part.context), experiment_(part.experiment), keep_(keep) {}

  // lumen_view_host.for_each_record_in_parts's visit.
  static void visit(void* self, uint16_t kind, const void* payload, uint16_t bytes, uint32_t thread_id);

  void start(const HeapStart&) override {}
  void op(const HeapOp& op) override;

  void* context() const { return context_; }  // the part's, for the host's calls about its experiment
  size_t experiment() const { return experiment_; }
  bool failed() const { return failed_; }
  LatestByAddress& latest() { return latest_; }
  // In the order each stack was first seen.
  const std::vector<StackSum>& sums() const { return sums_; }

 private:
  struct StackAt {
    uint64_t stack_id;
    uint32_t epoch;
    bool operator==(const StackAt&) const = default;
  };
  struct StackAtHash {
    size_t operator()(const StackAt& s) const {
      return std::hash<uint64_t>()(s.stack_id * 0x9e3779b97f4a7c15ull ^ s.epoch);
    }
  };

  const lumen_view_host& host_;
  void* context_;
  size_t experiment_;
  Keep keep_;
  bool failed_ = false;
  LatestByAddress latest_;
  std::vector<StackSum> sums_;
  std::unordered_map<StackAt, size_t, StackAtHash> sum_of_;
  StackAt last_{LUMEN_NO_STACK, UINT32_MAX};  // the last stack summed, repeated by most allocations
  size_t last_sum_ = 0;
};

}  // namespace lumen::heap
