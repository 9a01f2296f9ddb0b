// Whether plugins' events are recorded right now: paused and resumed
// (collect -y, collector_pause/resume), the collection window (collect -t)
// and the size limit (collect -L). Pausing stops plugins' events, never the
// runtime's own bookkeeping.
#pragma once

#include "collection_plan.h"

namespace lumen::collector {

// Not signal-safe. Sets the window and the initial pause state from the
// plan and claims its pause signal.
void recording_control_start(const metadata::CollectionPlan& plan);

// [signal-safe] Whether recording is paused, outside the window or stopped
// by the size limit.
bool paused();
void set_paused(bool paused);

// [signal-safe] Whether now is inside the collection window (collect -t).
bool inside_window();

}  // namespace lumen::collector
