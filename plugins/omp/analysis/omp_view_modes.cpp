// How OpenMP programs show in each view mode. User mode shows the program
// as written: a region's body (the function the compiler outlined) runs
// inside the function that holds the parallel construct, on every thread
// of the team, and the runtime's frames are gone; waits are Oracle's
// artificial functions, and time in the runtime outside them is
// <OMP-overhead>. Expert mode keeps the outlined bodies. Machine mode is
// the native stacks as recorded.
#include "omp_view_modes.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>

namespace lumen::omp {

namespace {

constexpr uint32_t kStitchedModes = (1u << LUMEN_VIEW_USER) | (1u << LUMEN_VIEW_EXPERT);
constexpr const char* kOverhead = "<OMP-overhead>";

bool starts_with(const char* text, const char* prefix) {
  return text != nullptr && std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

// A frame of an OpenMP runtime's own code.
bool is_runtime(const lumen_view_frame& frame) { return is_runtime_object(frame.load_object); }

// A body the compiler outlined: GCC's f._omp_fn.N (gfortran's too), LLVM's
// .omp_outlined. functions.
bool is_outlined_body(const lumen_view_frame& frame) {
  return frame.function != nullptr &&
         (std::strstr(frame.function, "._omp_fn.") != nullptr || std::strstr(frame.function, ".omp_outlined") != nullptr);
}

void declare(const lumen_event_sink* sink, uint32_t thread, uint64_t begin, uint64_t end, uint64_t anchor,
             uint64_t parent, const char* leaf) {
  const lumen_stitch stitch{thread, kStitchedModes, begin, end, anchor, parent, leaf};
  sink->stitch(sink->context, &stitch);
}

// Under an OMPT runtime a sample's artificial function is its own state's
// (a wait's kind, idle, overhead, a reduction), shown through a stitch over
// the short stretch after its state record where the sample is: it follows
// the record within its signal delivery, a microsecond or so later (the
// split into ompwork and ompwait uses the whole window, which is exact).
// Inside a wait the trace implies (a thread's wait at a region's end, a
// worker's idle time) the function is under the region's call, as the
// trace's own would be; elsewhere above the sample's frames; plain work
// keeps its frames. Between the stretches, what other plugins sample of
// the thread (off-CPU states) is shown by the trace's waits as without
// states. An event of another plugin inside a stretch is shown as its
// sample is.
constexpr uint64_t kSampleStretchNs = 50'000;

using Stretches = std::vector<std::pair<uint64_t, uint64_t>>;  // [begin, end), by time

// Declares [begin, end) less the thread's stretches.
void declare_outside(const Stretches* stretches, const lumen_event_sink* sink, uint32_t thread, uint64_t begin,
                     uint64_t end, uint64_t anchor, uint64_t parent, const char* leaf) {
  if (stretches != nullptr) {
    auto it = std::lower_bound(stretches->begin(), stretches->end(), begin,
                               [](const std::pair<uint64_t, uint64_t>& s, uint64_t t) { return s.second <= t; });
    for (; it != stretches->end() && it->first < end; ++it) {
      if (it->first > begin) declare(sink, thread, begin, it->first, anchor, parent, leaf);
      begin = std::max(begin, it->second);
    }
  }
  if (begin < end) declare(sink, thread, begin, end, anchor, parent, leaf);
}

constexpr uint32_t kGenericBarrierState = 0x010;  // ompt_state_wait_barrier

using WaitsByThread = std::unordered_map<uint32_t, std::vector<const OmpWait*>>;  // by begin

WaitsByThread by_thread(const std::vector<OmpWait>& waits) {
  WaitsByThread map;
  for (const OmpWait& wait : waits) map[wait.thread_id].push_back(&wait);
  for (auto& [thread, list] : map)
    std::sort(list.begin(), list.end(), [](const OmpWait* a, const OmpWait* b) { return a->begin_ns < b->begin_ns; });
  return map;
}

// The wait of `thread` that covers `time` (the latest to begin before it).
const OmpWait* wait_at(const WaitsByThread& waits, uint32_t thread, uint64_t time) {
  const auto found = waits.find(thread);
  if (found == waits.end()) return nullptr;
  const auto& list = found->second;
  const auto after =
      std::upper_bound(list.begin(), list.end(), time, [](uint64_t t, const OmpWait* w) { return t < w->begin_ns; });
  if (after == list.begin()) return nullptr;
  const OmpWait* wait = *std::prev(after);
  return time < wait->end_ns ? wait : nullptr;
}

template <typename RegionStack>
void declare_state_stitches(const std::vector<OmpWait>& recorded, const std::vector<OmpWait>& implied,
                            const std::vector<StateWindow>& windows, const RegionStack& region_stack,
                            const lumen_event_sink* sink) {
  const WaitsByThread implied_by_thread = by_thread(implied), recorded_by_thread = by_thread(recorded);
  std::unordered_map<uint32_t, Stretches> stretches;  // windows come by thread and time
  for (const StateWindow& window : windows) {
    const uint64_t end = std::min(window.end_ns, window.begin_ns + kSampleStretchNs);
    stretches[window.thread_id].emplace_back(window.begin_ns, end);
    const char* function = state_meaning(window.state).function;
    if (function == nullptr) continue;
    // libomp (LLVM 14) reports every barrier but a region's end as the
    // generic wait_barrier: its kind is the traced barrier's.
    if (window.state == kGenericBarrierState)
      if (const OmpWait* wait = wait_at(recorded_by_thread, window.thread_id, window.begin_ns))
        function = wait_function_name(wait->kind);
    if (const OmpWait* wait = wait_at(implied_by_thread, window.thread_id, window.begin_ns))
      declare(sink, window.thread_id, window.begin_ns, end, 0, region_stack(wait->region_id), function);
    else
      declare(sink, window.thread_id, window.begin_ns, end, LUMEN_STITCH_KEEP_FRAMES, LUMEN_NO_STACK, function);
  }
  const auto of_thread = [&](uint32_t thread) -> const Stretches* {
    const auto found = stretches.find(thread);
    return found == stretches.end() ? nullptr : &found->second;
  };
  // The trace's waits as without states (their own events at their ends
  // included), outside the stretches.
  for (const OmpWait& wait : implied)
    declare_outside(of_thread(wait.thread_id), sink, wait.thread_id, wait.begin_ns + 1, wait.end_ns + 1, 0,
                    region_stack(wait.region_id), wait_function_name(wait.kind));
  for (const OmpWait& wait : recorded)
    declare_outside(of_thread(wait.thread_id), sink, wait.thread_id, wait.begin_ns + 1, wait.end_ns + 1,
                    LUMEN_STITCH_KEEP_FRAMES, LUMEN_NO_STACK, wait_function_name(wait.kind));
}

}  // namespace

bool is_runtime_object(const char* load_object) {
  return starts_with(load_object, "libgomp.so") || starts_with(load_object, "libomp.so") ||
         starts_with(load_object, "libiomp5.so");
}

void declare_stitches(const OmpTrace& trace, const std::vector<OmpWait>& recorded, const std::vector<OmpWait>& implied,
                      const std::vector<StateWindow>& windows, const lumen_event_sink* sink) {
  if (sink->stitch == nullptr) return;
  std::unordered_map<uint64_t, const OmpRegion*> region_by_id;
  for (const OmpRegion& r : trace.regions) region_by_id[r.region_id] = &r;
  const auto region_stack = [&](uint64_t region_id) {
    const auto region = region_by_id.find(region_id);
    return region == region_by_id.end() ? LUMEN_NO_STACK : region->second->call_stack_id;
  };
  // A task's stack, from its body outward, continues with the stack of the
  // call that started its region.
  for (const OmpTask& task : trace.tasks) {
    const auto region = region_by_id.find(task.region_id);
    if (region == region_by_id.end() || task.end_ns <= task.begin_ns || region->second->body == 0) continue;
    declare(sink, task.thread_id, task.begin_ns, task.end_ns, region->second->body, region->second->call_stack_id,
            nullptr);
  }
  // An explicit task, from its body outward, continues with the stack of
  // the call that created it (on whichever thread).
  for (const OmpExplicitTask& task : trace.explicit_tasks)
    if (task.end_ns > task.begin_ns && task.body != 0)
      declare(sink, task.thread_id, task.begin_ns, task.end_ns, task.body, task.create_stack_id, nullptr);
  if (!windows.empty()) {
    declare_state_stitches(recorded, implied, windows, region_stack, sink);
    return;
  }
  // A wait covers (begin, end]: its own traced event happens at its end,
  // where the next wait (a worker's idle time after a region's barrier)
  // may begin.
  for (const OmpWait& wait : implied)
    declare(sink, wait.thread_id, wait.begin_ns + 1, wait.end_ns + 1, 0, region_stack(wait.region_id),
            wait_function_name(wait.kind));
  for (const OmpWait& wait : recorded)
    declare(sink, wait.thread_id, wait.begin_ns + 1, wait.end_ns + 1, LUMEN_STITCH_KEEP_FRAMES, LUMEN_NO_STACK,
            wait_function_name(wait.kind));
}

size_t fold_stack(lumen_view_mode mode, const lumen_view_frame* frames, size_t count, lumen_folded_frame* out) {
  size_t n = 0;
  for (size_t i = 0; i < count; ++i) {
    if (mode == LUMEN_VIEW_MACHINE) {
      out[n++] = {static_cast<int32_t>(i), nullptr};
      continue;
    }
    if (is_runtime(frames[i])) {
      // The runtime at the leaf, outside a wait (which a stitch made the
      // leaf): its overhead.
      if (i == 0 && mode == LUMEN_VIEW_USER) out[n++] = {-1, kOverhead};
      continue;
    }
    if (mode == LUMEN_VIEW_USER && is_outlined_body(frames[i])) continue;
    out[n++] = {static_cast<int32_t>(i), nullptr};
  }
  return n;
}

}  // namespace lumen::omp
