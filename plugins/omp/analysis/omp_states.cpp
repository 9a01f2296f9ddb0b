#include "omp_states.h"

#include <algorithm>

namespace lumen::omp {

namespace {
constexpr uint64_t kDeliveryNs = 1'000'000;
}  // namespace

StateMeaning state_meaning(uint32_t state) {
  const auto wait = [](WaitKind kind) { return StateMeaning{StateClass::kWait, wait_function_name(static_cast<uint16_t>(kind))}; };
  switch (state) {
    case 0x002: return {StateClass::kWork, wait_function_name(static_cast<uint16_t>(WaitKind::kReduction))};
    case 0x010:  // wait_barrier: any barrier (the view modes take its kind from the trace)
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

const char* state_name(uint32_t state) {
  switch (state) {
    case 0x000: return "work_serial";
    case 0x001: return "work_parallel";
    case 0x002: return "work_reduction";
    case 0x010: return "wait_barrier";
    case 0x011: return "wait_barrier_implicit_parallel";
    case 0x012: return "wait_barrier_implicit_workshare";
    case 0x013: return "wait_barrier_implicit";
    case 0x014: return "wait_barrier_explicit";
    case 0x015: return "wait_barrier_implementation";
    case 0x016: return "wait_barrier_teams";
    case 0x020: return "wait_taskwait";
    case 0x021: return "wait_taskgroup";
    case 0x040: return "wait_mutex";
    case 0x041: return "wait_lock";
    case 0x042: return "wait_critical";
    case 0x043: return "wait_atomic";
    case 0x044: return "wait_ordered";
    case 0x080: return "wait_target";
    case 0x081: return "wait_target_map";
    case 0x082: return "wait_target_update";
    case 0x100: return "idle";
    case 0x101: return "overhead";
    case 0x102: return "undefined";
  }
  return "unknown";
}

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

}  // namespace lumen::omp
