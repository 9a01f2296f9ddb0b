// A session's events decoded once: summed per cell, a unique stack's share
// of one thread, sample and time bin, with the times of the cell's first
// and last event. Every selection that treats the events of a cell alike
// (thread, sample, experiment and rank lists, gprofng expressions that
// read neither TSTAMP nor CPUID, and time bounds that fall between the
// cell's events) is then summed from the cells, with no file read again:
// what a pass over the files with that selection would sum, in the same
// order. A time bound that splits a cell, or a choice of CPUs or by the
// time in an expression, needs that pass.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "event_selection.h"
#include "experiment.h"
#include "metric_registry.h"
#include "sampled_parts.h"
#include "stack_aggregate.h"
#include "view_mode.h"

namespace lumen::analysis {

class EventCells {
 public:
  // Decodes every event of `experiments`, with the stitch chains of
  // `shaper`'s view mode.
  EventCells(const std::vector<std::unique_ptr<Experiment>>& experiments, const MetricRegistry& registry,
             const StackShaper& shaper);

  // Whether cells can tell the events the selections choose: not when
  // they choose by CPU or by the time in an expression.
  static bool can_select(const std::vector<EventSelection>& selections);
  // The aggregate of the events that every selection and `only` select
  // (as event_filter would), sampled parts placed; nothing when a time
  // bound lies between the first and last event of a cell it selects, or
  // can_select says no.
  std::optional<StackAggregate> select(const std::vector<EventSelection>& selections, const EventFilter& only,
                                       const SampledParts& sampled_parts) const;
  // The same choice, cell by cell in order: visit(cell) with `cell` an
  // index for the accessors below. False, having visited nothing, when
  // select would give nothing.
  bool for_each_selected(const std::vector<EventSelection>& selections, const EventFilter& only,
                         const std::function<void(size_t cell)>& visit) const;
  const StackAggregate& aggregate() const { return cells_; }

  size_t metric_count() const { return cells_.metric_count(); }
  size_t cells() const { return cells_.thread_shares(); }
  uint64_t bin_ns() const { return binning_.bin_ns; }

 private:
  const std::vector<std::unique_ptr<Experiment>>& experiments_;
  CellBinning binning_;
  StackAggregate cells_;
};

}  // namespace lumen::analysis
