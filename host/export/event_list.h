// er_print -event_list: the selected events one by one, in time order, each
// with its thread, CPU, time, span, recorded values and call stack as the
// view mode shows it. What the analyzer's timeline draws once a time range
// holds few enough events, and what a click on one of them shows.
#pragma once

#include <cstddef>
#include <optional>

#include "document.h"
#include "export_formats.h"
#include "structure_views.h"

namespace lumen::exporting {

// The events `input` selects, the first `limit` of them in time (all when
// none): a summary (events selected, listed) and a table, a row per event.
analysis::Document event_list(const ExportInput& input, const analysis::ViewRequest& request,
                              std::optional<size_t> limit);

}  // namespace lumen::exporting
