// The sync plugin's threshold option: "calibrate" or a wait in microseconds.
//
// The option is declared LUMEN_OPTION_STRING because one value must accept a
// word and a number; collect passes it on as written (after the -s aliases
// on -> calibrate, all -> 0) and the plugin validates it in start(), which
// fails with the message below for anything else.
#pragma once

#include <cstddef>
#include <cstdint>

namespace lumen::sync {

struct ThresholdSetting {
  bool calibrate = false;  // measure uncontended calls at start, use 6x their average
  int64_t ns = 0;          // when not calibrating: record waits longer than this; 0 records every call
};

inline constexpr int64_t kMaxThresholdNs = 3600LL * 1'000'000'000LL;

// Accepts "calibrate" (or "on"), "all" (= 0), and a non-negative number of
// microseconds, optionally with a fraction ("0.5") or a unit suffix (ns, us,
// ms, s), up to one hour; each optionally followed by gprofng's API suffix
// ",n", ",j" or ",nj". Returns false for anything else.
bool parse_threshold(const char* text, ThresholdSetting* out);

// What parse_threshold accepts, for error messages.
inline constexpr const char* kThresholdSyntax =
    "'calibrate' (or 'on'), 'all' (= 0: every call), or a wait in microseconds such as 5000 or 0.5 "
    "(a suffix ns, us, ms or s may be given), at most 1 hour, optionally followed by ,n ,j or ,nj";

}  // namespace lumen::sync
