// View modes of OpenMP programs (analysis_plugin.h, lumen_view_mode).
#pragma once

#include <lumen/analysis_plugin.h>

#include <vector>

#include "omp_states.h"
#include "omp_trace.h"

namespace lumen::omp {

// Declares the stitches of one data file's trace: each task under its
// region's call, each wait under its artificial function, and each sample
// the runtime's state decides (`untraced`, omp_states.h) under its state's.
void declare_stitches(const OmpTrace& trace, const std::vector<OmpWait>& recorded, const std::vector<OmpWait>& implied,
                      const std::vector<StateWindow>& untraced, const lumen_event_sink* sink);

// Whether a load object (its file name) is an OpenMP runtime's.
bool is_runtime_object(const char* load_object);

// Whether a function is a body the compiler outlined (a region's, a task's).
bool is_outlined_function(const char* function);

size_t fold_stack(lumen_view_mode mode, const lumen_view_frame* frames, size_t count, lumen_folded_frame* out);

}  // namespace lumen::omp
