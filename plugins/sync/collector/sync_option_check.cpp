// collect's check of the sync plugin's options, before the target starts: a
// threshold parse_threshold refuses (-s banana, -s -4, nan, a profile's bad
// `threshold:`) is refused there with the syntax, never found only in the
// target, where the plugin could only fail to start and record nothing.
#include "sync_option_check.h"

#include <cstdio>
#include <cstring>

#include "sync_threshold.h"

namespace lumen::sync {
namespace {

int check(const lumen_option_value* options, size_t count, char* error, size_t error_size) {
  for (size_t i = 0; i < count; ++i) {
    if (std::strcmp(options[i].name, "threshold") != 0) continue;
    ThresholdSetting setting;
    if (parse_threshold(options[i].value, &setting)) continue;
    std::snprintf(error, error_size, "threshold '%s' is not %s", options[i].value, kThresholdSyntax);
    return 1;
  }
  return 0;
}

}  // namespace

const lumen_collector_hooks kHostHooks = {.size = sizeof(lumen_collector_hooks), .check = check};

}  // namespace lumen::sync
