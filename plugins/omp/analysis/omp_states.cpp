#include "omp_states.h"

#include "../ompt_state_names.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace lumen::omp {

namespace {
constexpr uint64_t kDeliveryNs = 1'000'000;
}  // namespace

StateMeaning state_meaning(uint32_t state) {
  const auto wait = [](WaitKind kind) { return StateMeaning{StateClass::kWait, wait_function_name(static_cast<uint16_t>(kind))}; };
  switch (state) {
    case 0x002: return {StateClass::kWork, wait_function_name(static_cast<uint16_t>(WaitKind::kReduction))};
    case 0x010:  // wait_barrier: libomp 14's for explicit and worksharing barriers (the trace tells which)
    case 0x011:  // wait_barrier_implicit_parallel
    case 0x012:  // wait_barrier_implicit_workshare
    case 0x013:  // wait_barrier_implicit
    case 0x015:  // wait_barrier_implementation
    case 0x016:  // wait_barrier_teams
      return wait(WaitKind::kImplicitBarrier);
    case 0x014: return wait(WaitKind::kExplicitBarrier);
    case 0x020:  // wait_taskwait
    case 0x021:  // wait_taskgroup
      return wait(WaitKind::kTaskwait);
    case 0x040:  // wait_mutex
    case 0x041:  // wait_lock
      return wait(WaitKind::kLock);
    case 0x042: return wait(WaitKind::kCritical);
    case 0x043: return wait(WaitKind::kAtomic);
    case 0x044: return wait(WaitKind::kOrdered);
    case 0x100: return {StateClass::kIdle, wait_function_name(static_cast<uint16_t>(WaitKind::kIdle))};
    case 0x101: return {StateClass::kOverhead, "<OMP-overhead>"};
  }
  // wait_target, wait_target_map, wait_target_update (0x80-0x82).
  if (state >= 0x080 && state < 0x100) return {StateClass::kWait, "<OMP-target_wait>"};
  return {StateClass::kWork, nullptr};  // work_serial, work_parallel, undefined
}

const char* state_name(uint32_t state) { return ompt_state_label(state); }

std::vector<StateWindow> state_windows(const OmpTrace& trace) {
  std::vector<StateWindow> windows;
  windows.reserve(trace.states.size());
  for (const OmpState& s : trace.states) windows.push_back({s.thread_id, s.state, s.time_ns, 0});
  std::sort(windows.begin(), windows.end(), [](const StateWindow& a, const StateWindow& b) {
    return a.thread_id != b.thread_id ? a.thread_id < b.thread_id : a.begin_ns < b.begin_ns;
  });
  for (size_t i = 0; i < windows.size(); ++i) {
    const bool last = i + 1 == windows.size() || windows[i + 1].thread_id != windows[i].thread_id;
    // The last record's own sample follows it within the same delivery,
    // microseconds later, before the end of collection (or, when a crash
    // left no end, well within a millisecond).
    windows[i].end_ns = last ? std::max(trace.end_ns, windows[i].begin_ns + kDeliveryNs) : windows[i + 1].begin_ns;
  }
  // Two records of one thread at the same time (a clock that did not move)
  // leave an empty window: its sample is in the next one's.
  std::erase_if(windows, [](const StateWindow& w) { return w.end_ns <= w.begin_ns; });
  return windows;
}

std::vector<StateWindow> untraced_windows(const std::vector<StateWindow>& windows,
                                          const std::vector<OmpWait>& recorded, const std::vector<OmpWait>& implied) {
  // Per thread: the waits' begins in order, and the latest end of the
  // waits up to each, so that one binary search tells whether a time is
  // covered and where the next wait begins.
  struct Waits {
    std::vector<std::pair<uint64_t, uint64_t>> intervals;  // by begin
    std::vector<uint64_t> latest_end;
  };
  std::unordered_map<uint32_t, Waits> waits;
  for (const auto* list : {&recorded, &implied})
    for (const OmpWait& wait : *list) waits[wait.thread_id].intervals.emplace_back(wait.begin_ns, wait.end_ns);
  for (auto& [thread, w] : waits) {
    std::sort(w.intervals.begin(), w.intervals.end());
    uint64_t latest = 0;
    for (const auto& interval : w.intervals) w.latest_end.push_back(latest = std::max(latest, interval.second));
  }
  std::vector<StateWindow> untraced;
  for (StateWindow window : windows) {
    if (state_meaning(window.state).function == nullptr) continue;
    const auto found = waits.find(window.thread_id);
    if (found != waits.end()) {
      const Waits& w = found->second;
      const auto next = std::upper_bound(w.intervals.begin(), w.intervals.end(),
                                         std::make_pair(window.begin_ns, UINT64_MAX));
      const size_t before = static_cast<size_t>(next - w.intervals.begin());
      if (before > 0 && w.latest_end[before - 1] >= window.begin_ns) continue;  // the trace decides
      if (next != w.intervals.end()) window.end_ns = std::min(window.end_ns, next->first);
    }
    if (window.end_ns > window.begin_ns) untraced.push_back(window);
  }
  return untraced;
}

}  // namespace lumen::omp
