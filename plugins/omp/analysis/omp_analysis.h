#pragma once

#include <lumen/analysis_plugin.h>

#include <cstddef>

namespace lumen::omp {

extern const lumen_view_def kOmpViews[];
extern const size_t kOmpViewCount;

}  // namespace lumen::omp
