#include "vt_settings.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace lumen::mpi {

namespace {

bool parse_unsigned(const char* text, uint64_t* value) {
  if (text == nullptr || *text < '0' || *text > '9') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(text, &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *value = n;
  return true;
}

}  // namespace

bool parse_buffer_size(const char* text, uint64_t* bytes) {
  if (text == nullptr || *text < '0' || *text > '9') return false;
  errno = 0;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(text, &end, 10);
  if (errno != 0) return false;
  unsigned shift = 0;
  if (*end == 'K' || *end == 'k') shift = 10;
  else if (*end == 'M' || *end == 'm') shift = 20;
  else if (*end == 'G' || *end == 'g') shift = 30;
  if (shift != 0) ++end;
  if (*end != '\0' || n == 0 || n > (UINT64_MAX >> shift)) return false;
  *bytes = static_cast<uint64_t>(n) << shift;
  return true;
}

bool apply_vt_setting(VtSettings& settings, const char* name, const char* value, char* error, size_t error_size) {
  uint64_t n = 0;
  if (std::strcmp(name, "VT_STACKS") == 0 || std::strcmp(name, "stacks") == 0) {
    if (!parse_unsigned(value, &n) || n > 1) {
      std::snprintf(error, error_size, "%s='%s' is not 0 (no call stacks) or 1", name, value);
      return false;
    }
    settings.stacks = n == 1;
  } else if (std::strcmp(name, "VT_BUFFER_SIZE") == 0 || std::strcmp(name, "buffer_size") == 0) {
    if (!parse_buffer_size(value, &settings.buffer_bytes)) {
      std::snprintf(error, error_size, "%s='%s' is not a size in bytes (e.g. 65536, 512K, 64M, 2G)", name, value);
      return false;
    }
  } else if (std::strcmp(name, "VT_MAX_FLUSHES") == 0 || std::strcmp(name, "max_flushes") == 0) {
    if (!parse_unsigned(value, &settings.max_flushes)) {
      std::snprintf(error, error_size, "%s='%s' is not a count of flushes (0: unlimited)", name, value);
      return false;
    }
  } else if (std::strcmp(name, "VT_VERBOSE") == 0 || std::strcmp(name, "verbose") == 0) {
    if (!parse_unsigned(value, &n) || n > 9) {
      std::snprintf(error, error_size, "%s='%s' is not a verbosity level (0, 1 critical, 2 more)", name, value);
      return false;
    }
    settings.verbose = static_cast<int>(n);
  } else if (std::strcmp(name, "clock_sync") == 0) {
    if (!parse_unsigned(value, &n) || n > 1) {
      std::snprintf(error, error_size, "%s='%s' is not 0 (off) or 1", name, value);
      return false;
    }
    settings.clock_sync = n == 1;
  }
  return true;
}

bool apply_vt_environment(VtSettings& settings, char* error, size_t error_size) {
  for (const char* name : {"VT_STACKS", "VT_BUFFER_SIZE", "VT_MAX_FLUSHES", "VT_VERBOSE"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && !apply_vt_setting(settings, name, value, error, error_size)) return false;
  }
  return true;
}

}  // namespace lumen::mpi
