// A rank's times placed on its job's clock: from the rank's own measurements
// against rank 0 (MpiClock at MPI_Init and MPI_Finalize: the offset at each,
// the drift as the line between them, the offset alone when only one was
// made), added to where rank 0's clock lies on the job's (its experiment's
// wall-clock placement, lumen_view_host.clock_shift_ns). A rank without
// measurements keeps its own experiment's placement. Shared by the views
// and er_otf2.
#pragma once

#include <cstdint>
#include <optional>

#include "mpi_record.h"

namespace lumen::mpi {

// What a rank measured (either may be missing: a job cut short, an
// experiment of an older lumen).
struct RankClock {
  std::optional<MpiClock> init, finalize;
  bool measured() const { return init || finalize; }
  // The drift of the rank's clock against rank 0's, in nanoseconds a
  // nanosecond (0 with fewer than two measurements).
  double drift() const {
    if (!init || !finalize || finalize->local_ns <= init->local_ns) return 0;
    return (static_cast<double>(finalize->offset_ns) - static_cast<double>(init->offset_ns)) /
           static_cast<double>(finalize->local_ns - init->local_ns);
  }
  // The larger error of the two measurements.
  uint64_t error_ns() const {
    uint64_t e = 0;
    if (init) e = init->error_ns;
    if (finalize && finalize->error_ns > e) e = finalize->error_ns;
    return e;
  }
};

class ClockPlacement {
 public:
  ClockPlacement() = default;
  // A rank's own experiment's placement, where it measured nothing.
  static ClockPlacement shifted(int64_t shift_ns) {
    ClockPlacement p;
    p.shift_ns_ = static_cast<uint64_t>(shift_ns);
    return p;
  }
  // A rank's measurements, on top of rank 0's placement.
  // A drift past kMaxDrift (a hundred times a poor crystal's) is no
  // clock's: a damaged record, ignored. Sums wrap as unsigned (the records
  // may come from anyone).
  static ClockPlacement measured(const RankClock& clock, int64_t reference_shift_ns) {
    ClockPlacement p;
    const MpiClock& anchor = clock.init ? *clock.init : *clock.finalize;
    p.shift_ns_ = static_cast<uint64_t>(reference_shift_ns) + static_cast<uint64_t>(anchor.offset_ns);
    p.anchor_ns_ = anchor.local_ns;
    const double drift = clock.drift();
    p.drift_ = drift > -kMaxDrift && drift < kMaxDrift ? drift : 0;
    return p;
  }
  uint64_t place(uint64_t t) const {
    if (drift_ == 0) return t + shift_ns_;
    // |since x drift| < 2^63 x kMaxDrift: it fits.
    const double since = static_cast<double>(static_cast<int64_t>(t - anchor_ns_));
    return t + shift_ns_ + static_cast<uint64_t>(static_cast<int64_t>(since * drift_));
  }
  // Job nanoseconds a nanosecond of the rank's clock lasts.
  double rate() const { return 1.0 + drift_; }

 private:
  static constexpr double kMaxDrift = 0.01;
  uint64_t shift_ns_ = 0;
  uint64_t anchor_ns_ = 0;
  double drift_ = 0;
};

}  // namespace lumen::mpi
