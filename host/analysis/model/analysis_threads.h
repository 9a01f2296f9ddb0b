// How many threads analysis decodes data files on: `er_print --threads N`,
// else LUMEN_ANALYSIS_THREADS, else the machine's CPUs (at most 8). The
// result never depends on it (stack_profile.cpp merges in file order).
#pragma once

#include <cstddef>
#include <functional>

namespace lumen::analysis {

unsigned analysis_threads();
// 0 returns to the default.
void set_analysis_threads(unsigned threads);

// The fewest blocks of a data file decoded as one part on a thread: 16, or
// LUMEN_ANALYSIS_PART_BLOCKS (tests cut small experiments into many parts
// with it to check that parts merge into the one-pass result).
size_t analysis_part_blocks();

// How many blocks each part of a file of `blocks` blocks holds: about eight
// parts a thread, and at least analysis_part_blocks().
size_t blocks_per_part(size_t blocks);

// Runs work(0) ... work(count - 1) on up to analysis_threads() threads, the
// calling one among them, each index once; returns when all are done.
// `finished(n)` is called on the calling thread when it has finished one
// (n: how many are finished in all), for progress. `work` must not throw.
void run_parts(size_t count, const std::function<void(size_t index)>& work,
               const std::function<void(size_t finished)>& finished = {});

}  // namespace lumen::analysis
