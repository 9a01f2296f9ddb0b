// The OpenMP plugin as an OMPT tool (LLVM libomp and other runtimes with the
// OpenMP 5 tool interface): what the tool's start (ompt_tool.cpp) shares
// with its callbacks (ompt_callbacks.cpp). The OMPT types come from the
// runtime's own omp-tools.h (LUMEN_OMP_TOOLS_HEADER, found by CMake).
#pragma once

#include LUMEN_OMP_TOOLS_HEADER

#include <lumen/collector_support.h>

#include <atomic>

namespace lumen::omp {

// Registers the plugin's callbacks through `set_callback` (the runtime's
// ompt_set_callback) and keeps what the callbacks and the clock need from
// `lookup`. Returns false when the runtime offers too little to trace.
bool register_ompt_callbacks(ompt_function_lookup_t lookup, ompt_set_callback_t set_callback);

// Events are numbered from 1 up to ompt_callback_error (37) in OpenMP 5.1.
inline constexpr int kEventLimit = 64;

// The callbacks a chained tool registered, by event (ompt_tool.cpp).
extern std::atomic<ompt_callback_t> g_chained_callbacks[kEventLimit];

// The callback a chained tool registered for `event`, or NULL: the
// plugin's callback for that event calls it after its own work, with the
// same arguments. Inline: every callback asks.
inline ompt_callback_t chained_callback(ompt_callbacks_t event) {
  return event > 0 && event < kEventLimit ? g_chained_callbacks[event].load(std::memory_order_acquire) : nullptr;
}

// Whether the plugin registered a callback of its own for `event`;
// mark_plugin_event says it did (before the chained tool initializes).
bool plugin_uses_event(ompt_callbacks_t event);
void mark_plugin_event(ompt_callbacks_t event);

// The stack of the runtime's call into a callback (the plugin's frames are
// left out by the runtime), LUMEN_NO_STACK inside the collector already.
inline uint64_t callback_stack(const lumen_runtime* runtime) {
  TraceGuard guard(runtime);
  return guard ? runtime->stacks->capture_stack(nullptr, 0) : LUMEN_NO_STACK;
}

// The same stack, reused without unwinding while everything the last
// unwinding read is unchanged (capture_stack_reusing): `site` is the
// calling thread's cache for one kind of callback (nullptr: none, a plain
// capture).
inline uint64_t callback_stack(const lumen_runtime* runtime, lumen_capture_cache* site) {
  TraceGuard guard(runtime);
  if (!guard) return LUMEN_NO_STACK;
  return site != nullptr ? runtime->stacks->capture_stack_reusing(site, 0) : runtime->stacks->capture_stack(nullptr, 0);
}

// Explicit tasks (ompt_tasks.cpp): the callbacks, and the real functions
// of the program's task submissions, looked up when the tool starts.
void on_task_create(ompt_data_t* encountering_task, const ompt_frame_t* encountering_frame, ompt_data_t* new_task,
                    int flags, int has_dependences, const void* codeptr);
void on_task_schedule(ompt_data_t* prior_task, ompt_task_status_t prior_status, ompt_data_t* next_task);
void resolve_ompt_task_functions();

}  // namespace lumen::omp
