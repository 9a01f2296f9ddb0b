#include "analysis_threads.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

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

size_t blocks_per_part(size_t blocks) {
  const size_t threads = analysis_threads();
  return std::max(analysis_part_blocks(), (blocks + threads * 8 - 1) / (threads * 8));
}

void run_parts(size_t count, const std::function<void(size_t index)>& work,
               const std::function<void(size_t finished)>& finished) {
  std::atomic<size_t> next{0};
  std::atomic<size_t> done{0};
  auto loop = [&](bool calling) {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) {
      work(i);
      const size_t n = done.fetch_add(1, std::memory_order_relaxed) + 1;
      if (calling && finished) finished(n);
    }
  };
  const size_t threads = std::min<size_t>(analysis_threads(), count);
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t) helpers.emplace_back(loop, false);
  loop(true);
  for (std::thread& helper : helpers) helper.join();
}

}  // namespace lumen::analysis
