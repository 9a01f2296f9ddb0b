// The experiment's sample points ("samples" file) and the samples between
// them. Points carry cumulative process figures; sample N is the interval
// that ends at point N (1-based), so its figures are the differences between
// point N and point N-1. An event belongs to the sample whose interval
// (previous point, this point] holds its time.
#pragma once

#include <lumen/record_format.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace lumen::analysis {

struct SamplePoint {
  lumen_sample_record figures{};
  std::string name;  // API samples
};

struct Sample {
  uint32_t number = 0;        // 1-based
  uint64_t start_ns = 0;      // monotonic, exclusive
  uint64_t end_ns = 0;        // monotonic, inclusive
  uint32_t reason = 0;        // LUMEN_SAMPLE_* of the point that ends it
  std::string name;
  lumen_sample_record delta{};  // end point minus start point (resident: at the end)
};

class SampleTable {
 public:
  // Reads `file`; a missing file is an empty table.
  void load(const std::filesystem::path& file);

  const std::vector<SamplePoint>& points() const { return points_; }
  const std::vector<Sample>& samples() const { return samples_; }
  // The sample holding `time_ns`, 0 when no sample does (before the first
  // point or after the last).
  uint32_t sample_at(uint64_t time_ns) const;
  // The time collection started (the first point), 0 when unknown.
  uint64_t start_ns() const { return points_.empty() ? 0 : points_.front().figures.time_ns; }
  uint64_t end_ns() const { return points_.empty() ? 0 : points_.back().figures.time_ns; }

 private:
  std::vector<SamplePoint> points_;  // in time order
  std::vector<Sample> samples_;
};

// "Start", "Periodic", "Signal", "API", "End".
std::string sample_reason_word(uint32_t reason);

}  // namespace lumen::analysis
