#include "time_window.h"

namespace lumen::analysis {

std::pair<uint64_t, uint64_t> TimeWindow::on_clock(uint64_t start_ns) const {
  constexpr double kMargin = 1e-6;
  auto at = [start_ns](double seconds) {  // an event before the start counts as at it
    if (seconds <= 0) return start_ns;
    const double ns = static_cast<double>(start_ns) + seconds * 1e9;
    return ns >= 1.8e19 ? UINT64_MAX : static_cast<uint64_t>(ns);
  };
  const uint64_t from = from_s && *from_s - kMargin > 0 ? at(*from_s - kMargin) : 0;
  const uint64_t to = !to_s ? UINT64_MAX : *to_s + kMargin < 0 ? 0 : at(*to_s + kMargin);
  return {from, to};
}

}  // namespace lumen::analysis
