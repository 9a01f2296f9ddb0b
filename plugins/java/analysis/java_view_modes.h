// View modes of Java programs (analysis_plugin.h, lumen_view_mode).
#pragma once

#include <lumen/analysis_plugin.h>

namespace lumen::java {

size_t fold_stack(lumen_view_mode mode, const lumen_view_frame* frames, size_t count, lumen_folded_frame* out);

}  // namespace lumen::java
