#include "analysis_threads.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>

namespace lumen::analysis {

namespace {
std::atomic<unsigned> g_threads{0};
}

unsigned analysis_threads() {
  if (const unsigned set = g_threads.load(std::memory_order_relaxed)) return set;
  if (const char* value = std::getenv("LUMEN_ANALYSIS_THREADS")) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(value, &end, 10);
    if (end != value && *end == '\0' && n > 0) return static_cast<unsigned>(std::min<unsigned long>(n, 256));
  }
  return std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
}

void set_analysis_threads(unsigned threads) { g_threads.store(std::min(threads, 256u), std::memory_order_relaxed); }

size_t analysis_part_blocks() {
  if (const char* value = std::getenv("LUMEN_ANALYSIS_PART_BLOCKS")) {
    char* end = nullptr;
    const unsigned long n = std::strtoul(value, &end, 10);
    if (end != value && *end == '\0' && n > 0) return n;
  }
  return 16;
}

}  // namespace lumen::analysis
