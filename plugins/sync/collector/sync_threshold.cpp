#include "sync_threshold.h"

#include <cstring>

namespace lumen::sync {

bool parse_threshold(const char* text, ThresholdSetting* out) {
  if (text == nullptr || out == nullptr) return false;
  // gprofng's API suffix: ",n" (POSIX threads, what this plugin traces),
  // ",j" or ",nj" (Java monitors too, which the Java plugin records).
  if (const char* comma = std::strchr(text, ',')) {
    if (std::strcmp(comma, ",n") != 0 && std::strcmp(comma, ",j") != 0 && std::strcmp(comma, ",nj") != 0) return false;
    char threshold[64];
    const size_t length = static_cast<size_t>(comma - text);
    if (length == 0 || length >= sizeof threshold) return false;
    std::memcpy(threshold, text, length);
    threshold[length] = '\0';
    return parse_threshold(threshold, out);
  }
  if (std::strcmp(text, "calibrate") == 0 || std::strcmp(text, "on") == 0) {
    *out = {true, 0};
    return true;
  }
  if (std::strcmp(text, "all") == 0) {
    *out = {false, 0};
    return true;
  }
  // Digits, an optional fraction, an optional unit. Exact integer arithmetic
  // in picoseconds-free form: whole and fractional parts kept apart.
  const char* p = text;
  uint64_t whole = 0;
  int whole_digits = 0;
  for (; *p >= '0' && *p <= '9'; ++p, ++whole_digits) {
    if (whole > 1'000'000'000'000ULL) return false;  // far beyond the maximum
    whole = whole * 10 + static_cast<uint64_t>(*p - '0');
  }
  uint64_t fraction = 0, fraction_scale = 1;
  int fraction_digits = 0;
  if (*p == '.') {
    for (++p; *p >= '0' && *p <= '9'; ++p, ++fraction_digits) {
      if (fraction_digits < 9) {
        fraction = fraction * 10 + static_cast<uint64_t>(*p - '0');
        fraction_scale *= 10;
      }
    }
  }
  if (whole_digits + fraction_digits == 0) return false;
  uint64_t unit_ns;
  if (*p == '\0' || std::strcmp(p, "us") == 0) unit_ns = 1'000;
  else if (std::strcmp(p, "ns") == 0) unit_ns = 1;
  else if (std::strcmp(p, "ms") == 0) unit_ns = 1'000'000;
  else if (std::strcmp(p, "s") == 0) unit_ns = 1'000'000'000;
  else return false;
  if (whole > static_cast<uint64_t>(kMaxThresholdNs) / unit_ns) return false;
  const uint64_t ns = whole * unit_ns + (fraction * unit_ns + fraction_scale / 2) / fraction_scale;
  if (ns > static_cast<uint64_t>(kMaxThresholdNs)) return false;
  *out = {false, static_cast<int64_t>(ns)};
  return true;
}

}  // namespace lumen::sync
