// The cost of one malloc/free pair, as the program pays it. Run alone it
// measures glibc; run under `collect -H on` each call goes through the heap
// interposers, which capture the caller's stack and append an event to the
// thread's batch. The difference between the runs is the tracing cost per
// pair; the depth variants show how it grows with the stack the unwinder
// walks.
//
//   heap_pair_bench --benchmark_min_time=0.5
//   collect -H on -o on.er heap_pair_bench --benchmark_min_time=0.5
//
// It reports figures only; nothing here passes or fails on a timing.
#include <benchmark/benchmark.h>

#include <cstdlib>

namespace {

__attribute__((noinline)) void malloc_free_pair(size_t size) {
  void* p = std::malloc(size);
  benchmark::DoNotOptimize(p);
  std::free(p);
}

// Calls malloc_free_pair `depth` frames further down.
__attribute__((noinline)) void at_depth(int depth, size_t size) {
  if (depth <= 0) return malloc_free_pair(size);
  at_depth(depth - 1, size);
  benchmark::ClobberMemory();  // not a tail call: every level keeps its frame
}

void BM_MallocFreePair(benchmark::State& state) {
  const auto size = static_cast<size_t>(state.range(0));
  for (auto _ : state) malloc_free_pair(size);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MallocFreePair)->Arg(64)->Arg(4000);

void BM_MallocFreePairAtDepth(benchmark::State& state) {
  const int depth = static_cast<int>(state.range(0));
  for (auto _ : state) at_depth(depth, 64);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MallocFreePairAtDepth)->Arg(10)->Arg(30);

// Several threads at once: recording scales when no lock is shared.
void BM_MallocFreePairThreads(benchmark::State& state) {
  for (auto _ : state) malloc_free_pair(64);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MallocFreePairThreads)->Threads(1)->Threads(2)->Threads(4)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
