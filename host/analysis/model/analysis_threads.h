// How many threads analysis decodes data files on: `er_print --threads N`,
// else LUMEN_ANALYSIS_THREADS, else the machine's CPUs (at most 8). The
// result never depends on it (stack_profile.cpp merges in file order).
#pragma once

#include <cstddef>

namespace lumen::analysis {

unsigned analysis_threads();
// 0 returns to the default.
void set_analysis_threads(unsigned threads);

// The fewest blocks of a data file decoded as one part on a thread: 16, or
// LUMEN_ANALYSIS_PART_BLOCKS (tests cut small experiments into many parts
// with it to check that parts merge into the one-pass result).
size_t analysis_part_blocks();

}  // namespace lumen::analysis
