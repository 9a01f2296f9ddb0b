// A stretch of time a selection keeps events from, in seconds since each
// experiment's start: what lets a reading skip the blocks of a data file
// that hold none of it (Experiment::blocks_near).
#pragma once

#include <cstdint>
#include <optional>
#include <utility>

namespace lumen::analysis {

struct TimeWindow {
  std::optional<double> from_s, to_s;
  bool bounded() const { return from_s.has_value() || to_s.has_value(); }
  // [from, to] on an experiment's clock that starts at `start_ns`, a
  // microsecond wider each way than the selection's own test.
  std::pair<uint64_t, uint64_t> on_clock(uint64_t start_ns) const;
};

}  // namespace lumen::analysis
