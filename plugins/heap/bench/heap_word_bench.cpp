// The cost of one change to the process-wide {bytes in use, highest} word
// (plugins/heap/collector/bytes_in_use.h), which every traced event makes,
// from 1, 2 and 4 threads at once: with more than one, the word's line
// moves between CPUs. The work argument is a number of idle loop turns
// between changes (a traced event does other work between them).
//
//   heap_word_bench --benchmark_min_time=0.5
//
// It reports figures only; nothing here passes or fails on a timing. On a
// machine shared with other work the threads seldom run at once and the
// contended figures mean little.
#include <benchmark/benchmark.h>

#include "collector/bytes_in_use.h"

namespace {

void idle(int64_t turns) {
  for (int64_t i = 0; i < turns; ++i) benchmark::ClobberMemory();
}

// An allocation and its free, as a churning thread makes them.
void BM_WordChange(benchmark::State& state) {
  const int64_t turns = state.range(0);
  bool raised = false;
  for (auto _ : state) {
    benchmark::DoNotOptimize(lumen::heap::bytes_in_use_change(64, raised));
    idle(turns);
    benchmark::DoNotOptimize(lumen::heap::bytes_in_use_change(-64, raised));
    idle(turns);
  }
  state.SetItemsProcessed(2 * state.iterations());
}
BENCHMARK(BM_WordChange)->Arg(0)->Arg(100)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
