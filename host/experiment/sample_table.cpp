#include "sample_table.h"

#include <algorithm>
#include <cstring>

#include "data_file_reader.h"
#include "format_error.h"

namespace lumen::analysis {

void SampleTable::load(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) return;
  read_data_file(file, [&](const RawRecord& r) {
    if (r.kind != LUMEN_RECORD_SAMPLE) return;
    SamplePoint point;
    if (r.payload_bytes < sizeof point.figures) throw FormatError(file.string(), r.offset, "sample record too short");
    std::memcpy(&point.figures, r.payload, sizeof point.figures);
    if (sizeof point.figures + uint64_t{point.figures.name_bytes} > r.payload_bytes)
      throw FormatError(file.string(), r.offset, "sample record does not hold its name");
    point.name.assign(static_cast<const char*>(r.payload) + sizeof point.figures, point.figures.name_bytes);
    points_.push_back(std::move(point));
  });
  std::stable_sort(points_.begin(), points_.end(), [](const SamplePoint& a, const SamplePoint& b) {
    return a.figures.time_ns < b.figures.time_ns;
  });
  for (size_t i = 1; i < points_.size(); ++i) {
    const lumen_sample_record& from = points_[i - 1].figures;
    const lumen_sample_record& to = points_[i].figures;
    // Cumulative figures never go back; a smaller one (a forked child's
    // fresh rusage) counts from zero.
    auto delta = [](uint64_t a, uint64_t b) { return b >= a ? b - a : b; };
    Sample s;
    s.number = static_cast<uint32_t>(i);
    s.start_ns = from.time_ns;
    s.end_ns = to.time_ns;
    s.reason = to.reason;
    s.name = points_[i].name;
    s.delta.time_ns = to.time_ns - from.time_ns;
    s.delta.user_ns = delta(from.user_ns, to.user_ns);
    s.delta.system_ns = delta(from.system_ns, to.system_ns);
    s.delta.minor_faults = delta(from.minor_faults, to.minor_faults);
    s.delta.major_faults = delta(from.major_faults, to.major_faults);
    s.delta.voluntary_switches = delta(from.voluntary_switches, to.voluntary_switches);
    s.delta.involuntary_switches = delta(from.involuntary_switches, to.involuntary_switches);
    s.delta.blocks_in = delta(from.blocks_in, to.blocks_in);
    s.delta.blocks_out = delta(from.blocks_out, to.blocks_out);
    s.delta.resident_bytes = to.resident_bytes;
    s.delta.reason = to.reason;
    samples_.push_back(std::move(s));
  }
}

uint32_t SampleTable::sample_at(uint64_t time_ns) const {
  if (points_.empty() || time_ns <= points_.front().figures.time_ns) return 0;
  const auto it = std::lower_bound(samples_.begin(), samples_.end(), time_ns,
                                   [](const Sample& s, uint64_t t) { return s.end_ns < t; });
  return it == samples_.end() ? 0 : it->number;
}

std::string sample_reason_word(uint32_t reason) {
  switch (reason) {
    case LUMEN_SAMPLE_START: return "Start";
    case LUMEN_SAMPLE_PERIODIC: return "Periodic";
    case LUMEN_SAMPLE_SIGNAL: return "Signal";
    case LUMEN_SAMPLE_API: return "API";
    case LUMEN_SAMPLE_END: return "End";
  }
  return "Unknown";
}

}  // namespace lumen::analysis
