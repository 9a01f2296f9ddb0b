// The OpenMP plugin as an OMPT tool (LLVM libomp and other runtimes with the
// OpenMP 5 tool interface): what the tool's start (ompt_tool.cpp) shares
// with its callbacks (ompt_callbacks.cpp). The OMPT types come from the
// runtime's own omp-tools.h (LUMEN_OMP_TOOLS_HEADER, found by CMake).
#pragma once

#include LUMEN_OMP_TOOLS_HEADER

namespace lumen::omp {

// Registers the plugin's callbacks through `set_callback` (the runtime's
// ompt_set_callback) and keeps what the callbacks and the clock need from
// `lookup`. Returns false when the runtime offers too little to trace.
bool register_ompt_callbacks(ompt_function_lookup_t lookup, ompt_set_callback_t set_callback);

// The callback a chained tool registered for `event`, or NULL: the
// plugin's callback for that event calls it after its own work, with the
// same arguments.
ompt_callback_t chained_callback(ompt_callbacks_t event);

// Whether the plugin registered a callback of its own for `event`;
// mark_plugin_event says it did (before the chained tool initializes).
bool plugin_uses_event(ompt_callbacks_t event);
void mark_plugin_event(ompt_callbacks_t event);

}  // namespace lumen::omp
