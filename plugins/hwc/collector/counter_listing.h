// What `collect -h` prints: the counters this machine offers, in the
// Performance Analyzer's format. Not signal-safe; runs in collect.
#pragma once

namespace lumen::hwc {

// Calls `line` once per line of the listing.
void list_counters(void (*line)(void* context, const char* text), void* context);

}  // namespace lumen::hwc
