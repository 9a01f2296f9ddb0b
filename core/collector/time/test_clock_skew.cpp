#include "time/test_clock_skew.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace lumen::collector {
namespace {

bool g_skewed = false;
int64_t g_offset_ns = 0;
int64_t g_drift_ppm = 0;

}  // namespace

void test_clock_skew_init() {
  const char* value = std::getenv("LUMEN_TEST_CLOCK_SKEW");
  if (value == nullptr) return;
  const char* colon = std::strchr(value, ':');
  if (colon == nullptr) return;
  char host[256] = "";
  if (gethostname(host, sizeof host - 1) != 0) return;
  if (std::strlen(host) != static_cast<size_t>(colon - value) || std::strncmp(host, value, colon - value) != 0) return;
  char* end = nullptr;
  g_offset_ns = std::strtoll(colon + 1, &end, 10);
  if (*end != ':') return;
  g_drift_ppm = std::strtoll(end + 1, &end, 10);
  if (*end != '\0') return;
  g_skewed = true;
}

uint64_t test_clock_skewed(uint64_t ns) {
  if (!g_skewed) return ns;
  const __int128 drift = static_cast<__int128>(ns) * g_drift_ppm / 1000000;
  return static_cast<uint64_t>(static_cast<__int128>(ns) + g_offset_ns + drift);
}

}  // namespace lumen::collector
