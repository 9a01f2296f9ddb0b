// The cost of one uncontended pthread_mutex_lock/unlock pair, as the program
// pays it. Run alone it measures glibc; run under `collect -s on` the calls
// go through the sync interposers, which read the clock twice and forward
// (an uncontended pair stays below the calibrated threshold, so nothing is
// recorded); under `collect -s all` every call is also recorded with its
// stack. The difference between the runs is the tracing cost per pair.
//
//   sync_pair_bench --benchmark_min_time=0.5
//   collect -s on  -o on.er  sync_pair_bench --benchmark_min_time=0.5
//   collect -s all -o all.er sync_pair_bench --benchmark_min_time=0.5
//
// It reports figures only; nothing here passes or fails on a timing.
#include <benchmark/benchmark.h>
#include <pthread.h>

namespace {

pthread_mutex_t g_mutex = PTHREAD_MUTEX_INITIALIZER;

void BM_UncontendedMutexPair(benchmark::State& state) {
  for (auto _ : state) {
    pthread_mutex_lock(&g_mutex);
    benchmark::ClobberMemory();
    pthread_mutex_unlock(&g_mutex);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UncontendedMutexPair);

pthread_rwlock_t g_rwlock = PTHREAD_RWLOCK_INITIALIZER;

void BM_UncontendedReadLockPair(benchmark::State& state) {
  for (auto _ : state) {
    pthread_rwlock_rdlock(&g_rwlock);
    benchmark::ClobberMemory();
    pthread_rwlock_unlock(&g_rwlock);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UncontendedReadLockPair);

}  // namespace

BENCHMARK_MAIN();
