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
constexpr size_t kMaxNesting = 16;  // regions around a region whose stitches are declared

// A sample the runtime's state decides follows its state record within its
// signal delivery, a microsecond or so later: its artificial function is
// declared over this much after the record (the split into ompwork and
// ompwait uses the whole window), so that what other plugins record of the
// thread later in the window keeps its own frames.
constexpr uint64_t kSampleStretchNs = 50'000;

bool starts_with(const char* text, const char* prefix) {
  return text != nullptr && std::strncmp(text, prefix, std::strlen(prefix)) == 0;
}

// A frame of an OpenMP runtime's own code.
bool is_runtime(const lumen_view_frame& frame) { return is_runtime_object(frame.load_object); }

bool is_outlined_body(const lumen_view_frame& frame) { return is_outlined_function(frame.function); }

void declare(const lumen_event_sink* sink, uint32_t thread, uint64_t begin, uint64_t end, uint64_t anchor,
             uint64_t parent, const char* leaf) {
  const lumen_stitch stitch{thread, kStitchedModes, begin, end, anchor, parent, leaf};
  sink->stitch(sink->context, &stitch);
}

}  // namespace

// GCC's f._omp_fn.N (gfortran's too), LLVM's .omp_outlined. functions and
// the entry functions of its tasks (.omp_task_entry.).
bool is_outlined_function(const char* function) {
  return function != nullptr && (std::strstr(function, "._omp_fn.") != nullptr ||
                                 std::strstr(function, ".omp_outlined") != nullptr ||
                                 std::strstr(function, ".omp_task_entry") != nullptr);
}

bool is_runtime_object(const char* load_object) {
  return starts_with(load_object, "libgomp.so") || starts_with(load_object, "libomp.so") ||
         starts_with(load_object, "libiomp5.so");
}

// Over a thread's interval, the stitches of region `region_id` and of
// every region around it, outermost first (declared first, so outer where
// they cover the same time): a stack continued with a region's call, made
// in its parent region's body, continues in turn with the parent's call,
// up to the outermost region, on whichever thread each call was made.
void declare_regions(const lumen_event_sink* sink, const std::unordered_map<uint64_t, const OmpRegion*>& region_by_id,
                     uint64_t region_id, bool with_innermost, uint32_t thread, uint64_t begin, uint64_t end) {
  const OmpRegion* nesting[kMaxNesting];
  size_t depth = 0;
  for (auto found = region_by_id.find(region_id); found != region_by_id.end() && depth < kMaxNesting;
       found = region_by_id.find(found->second->parent_region_id)) {
    nesting[depth++] = found->second;
    if (found->second->parent_region_id == found->second->region_id) break;
  }
  for (size_t i = depth; i-- > (with_innermost ? 0 : 1);)
    if (nesting[i]->body != 0) declare(sink, thread, begin, end, nesting[i]->body, nesting[i]->call_stack_id, nullptr);
}

void declare_stitches(const OmpTrace& trace, const std::vector<OmpWait>& recorded, const std::vector<OmpWait>& implied,
                      const std::vector<StateWindow>& untraced, const lumen_event_sink* sink) {
  if (sink->stitch == nullptr) return;
  std::unordered_map<uint64_t, const OmpRegion*> region_by_id;
  for (const OmpRegion& r : trace.regions) region_by_id[r.region_id] = &r;
  // A task's stack, from its body outward, continues with the stack of the
  // call that started its region (and that, with its own region's).
  for (const OmpTask& task : trace.tasks) {
    if (task.end_ns <= task.begin_ns) continue;
    declare_regions(sink, region_by_id, task.region_id, true, task.thread_id, task.begin_ns, task.end_ns);
  }
  // An explicit task, from its body outward, continues with the stack of
  // the call that created it (on whichever thread), and that with its
  // region's call.
  for (const OmpExplicitTask& task : trace.explicit_tasks) {
    if (task.end_ns <= task.begin_ns || task.body == 0) continue;
    declare_regions(sink, region_by_id, task.region_id, true, task.thread_id, task.begin_ns, task.end_ns);
    declare(sink, task.thread_id, task.begin_ns, task.end_ns, task.body, task.create_stack_id, nullptr);
  }
  // A wait covers (begin, end]: its own traced event happens at its end,
  // where the next wait (a worker's idle time after a region's barrier)
  // may begin.
  // A worker idle when the process ended stays idle for what the other
  // plugins record of it after omp's stop (the states' last stretch of
  // each thread, stamped when they stop).
  for (const OmpWait& wait : implied) {
    const auto region = region_by_id.find(wait.region_id);
    const uint64_t parent = region == region_by_id.end() ? LUMEN_NO_STACK : region->second->call_stack_id;
    const bool idle_at_end = trace.process_ended && static_cast<WaitKind>(wait.kind) == WaitKind::kIdle && wait.end_ns == trace.end_ns;
    const uint64_t end = idle_at_end ? UINT64_MAX : wait.end_ns + 1;
    declare_regions(sink, region_by_id, wait.region_id, false, wait.thread_id, wait.begin_ns + 1, end);
    declare(sink, wait.thread_id, wait.begin_ns + 1, end, 0, parent, wait_function_name(wait.kind));
  }
  for (const OmpWait& wait : recorded)
    declare(sink, wait.thread_id, wait.begin_ns + 1, wait.end_ns + 1, LUMEN_STITCH_KEEP_FRAMES, LUMEN_NO_STACK,
            wait_function_name(wait.kind));
  // Outside the trace's waits: the state's function above the sample's
  // own frames.
  for (const StateWindow& window : untraced)
    declare(sink, window.thread_id, window.begin_ns, std::min(window.end_ns, window.begin_ns + kSampleStretchNs),
            LUMEN_STITCH_KEEP_FRAMES, LUMEN_NO_STACK, state_meaning(window.state).function);
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
