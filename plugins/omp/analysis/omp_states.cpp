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

TraceWaits::TraceWaits(const std::vector<OmpWait>& recorded, const std::vector<OmpWait>& implied) {
  for (const auto* list : {&recorded, &implied})
    for (const OmpWait& wait : *list) by_thread_[wait.thread_id].by_begin.push_back(&wait);
  for (auto& [thread, waits] : by_thread_) {
    std::sort(waits.by_begin.begin(), waits.by_begin.end(),
              [](const OmpWait* a, const OmpWait* b) { return a->begin_ns < b->begin_ns; });
    const OmpWait* latest = nullptr;
    for (const OmpWait* wait : waits.by_begin) {
      if (latest == nullptr || wait->end_ns >= latest->end_ns) latest = wait;
      waits.latest_ending.push_back(latest);
    }
  }
}

const OmpWait* TraceWaits::covering(uint32_t thread, uint64_t time_ns) const {
  const auto found = by_thread_.find(thread);
  if (found == by_thread_.end()) return nullptr;
  const Waits& waits = found->second;
  const auto after = std::upper_bound(waits.by_begin.begin(), waits.by_begin.end(), time_ns,
                                      [](uint64_t time, const OmpWait* wait) { return time < wait->begin_ns; });
  const size_t before = static_cast<size_t>(after - waits.by_begin.begin());
  if (before == 0) return nullptr;
  const OmpWait* latest = waits.latest_ending[before - 1];
  return latest->end_ns >= time_ns ? latest : nullptr;
}

uint64_t TraceWaits::next_begin(uint32_t thread, uint64_t time_ns) const {
  const auto found = by_thread_.find(thread);
  if (found == by_thread_.end()) return UINT64_MAX;
  const Waits& waits = found->second;
  const auto after = std::upper_bound(waits.by_begin.begin(), waits.by_begin.end(), time_ns,
                                      [](uint64_t time, const OmpWait* wait) { return time < wait->begin_ns; });
  return after == waits.by_begin.end() ? UINT64_MAX : (*after)->begin_ns;
}

std::vector<StateWindow> untraced_windows(const std::vector<StateWindow>& windows, const TraceWaits& waits) {
  std::vector<StateWindow> untraced;
  for (StateWindow window : windows) {
    if (state_meaning(window.state).function == nullptr) continue;
    if (waits.covering(window.thread_id, window.begin_ns) != nullptr) continue;  // the trace decides
    window.end_ns = std::min(window.end_ns, waits.next_begin(window.thread_id, window.begin_ns));
    if (window.end_ns > window.begin_ns) untraced.push_back(window);
  }
  return untraced;
}

StateClass decided_class(const OmpState& state, const TraceWaits& waits) {
  if (const OmpWait* wait = waits.covering(state.thread_id, state.time_ns))
    return wait->kind == static_cast<uint16_t>(WaitKind::kIdle) ? StateClass::kIdle : StateClass::kWait;
  return state_meaning(state.state).state_class;
}

}  // namespace lumen::omp
