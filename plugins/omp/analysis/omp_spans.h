// OpenMP parallel regions on timelines (lumen_span): each thread of a
// region's team is in it from the start of its part (the encountering
// thread: the region's start; a worker: the start of its implicit task)
// to the region's end, when the end barrier lets the team go.
#pragma once

#include <lumen/analysis_plugin.h>

#include "omp_trace.h"

namespace lumen::omp {

inline constexpr const char* kRegionSpanName = "OpenMP parallel region";

// One span per region and thread of its team, on `sink` (nothing when the
// reader draws no timeline).
void emit_region_spans(const OmpTrace& trace, const lumen_event_sink* sink);

}  // namespace lumen::omp
