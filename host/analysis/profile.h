// A profile: the events of one or more experiments that pass a filter,
// aggregated per unique stack first and then attributed once per unique
// stack to functions and to load objects.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "experiment.h"
#include "metric_engine.h"
#include "program_structure.h"

namespace lumen::analysis {

// Selects events before aggregation; empty accepts all.
using EventFilter = std::function<bool(size_t experiment_index, const lumen_event&)>;

inline constexpr NodeId kTotalObjectNode = UINT32_MAX;

class Profile {
 public:
  Profile(const std::vector<std::unique_ptr<Experiment>>& experiments, const MetricRegistry& registry,
          ProgramStructure& structure, const EventFilter& filter);

  const MetricEngine& functions() const { return functions_; }
  const MetricEngine& objects() const { return objects_; }  // node = ObjectId; <Total> = kTotalObjectNode
  uint64_t events() const { return events_; }
  uint64_t unique_stacks() const { return unique_stacks_; }

 private:
  MetricEngine functions_;
  MetricEngine objects_;
  uint64_t events_ = 0;
  uint64_t unique_stacks_ = 0;
};

}  // namespace lumen::analysis
