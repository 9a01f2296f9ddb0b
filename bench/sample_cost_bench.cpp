// What one clock-profiling sample costs inside the target, piece by piece:
// interning a stack that is already in the table, unwinding and interning
// the calling thread's stack, appending one 40-byte record, and the whole
// sample as the clock plugin takes it in its SIGPROF handler; one sample
// packet (collect -S, -l, collector_sample) as the runtime records it; and
// one time stamp, from clock_gettime and from the runtime's TSC clock.
//
// The benchmarks link the runtime's parts (lumen_collector_parts) directly;
// their data files go to a temporary directory removed at exit. They report
// figures only: nothing here passes or fails on a timing.
//
//   build/bin/lumen_bench --benchmark_min_time=0.2
#define UNW_LOCAL_ONLY
#include <benchmark/benchmark.h>
#include <dirent.h>
#include <libunwind.h>
#include <lumen/record_format.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "plugins/clock/clock_record.h"
#include "time/clock.h"
#include "collection_plan.h"
#include "periodic/sample_points.h"
#include "stacks/stack_capture.h"
#include "stacks/stack_table.h"
#include "recording/stream_writer.h"
#include "threads/program_thread_state.h"
#include "time/tsc_clock.h"

namespace {

using lumen::clock::ClockSplitSample;
namespace lc = lumen::collector;

// ---- the experiment directory the benchmarks write into ----

std::string g_directory;
int g_profile_stream = -1;  // clock samples, as the plugin writes them
int g_records_stream = -1;  // BM_WriteRecord's own file

bool set_up_experiment() {
  char pattern[] = "/tmp/lumen_bench.XXXXXX";
  if (mkdtemp(pattern) == nullptr) {
    std::perror("lumen_bench: mkdtemp");
    return false;
  }
  g_directory = pattern;
  const int stacks = lc::open_stream(g_directory.c_str(), LUMEN_STACKS_FILE);
  g_profile_stream = lc::open_stream(g_directory.c_str(), lumen::clock::kDataFile);
  g_records_stream = lc::open_stream(g_directory.c_str(), "records");
  if (stacks < 0 || g_profile_stream < 0 || g_records_stream < 0 || !lc::stack_table_init(stacks)) {
    std::fprintf(stderr, "lumen_bench: cannot set up the data files in %s\n", g_directory.c_str());
    return false;
  }
  // What stack_capture_init does, minus excluding this executable's frames
  // (the runtime excludes its own shared object; here the parts are linked
  // into the benchmark, and excluding it would leave no frames at all).
  lc::stack_capture_use_global_cache();
  return true;
}

void remove_experiment() {
  if (g_directory.empty()) return;
  lc::finish_thread_streams();
  if (DIR* dir = opendir(g_directory.c_str())) {
    while (const dirent* entry = readdir(dir)) {
      if (std::strcmp(entry->d_name, ".") == 0 || std::strcmp(entry->d_name, "..") == 0) continue;
      unlink((g_directory + "/" + entry->d_name).c_str());
    }
    closedir(dir);
  }
  rmdir(g_directory.c_str());
}

// ---- a call chain of known depth ----

using Leaf = void (*)(benchmark::State&);

// Recurses `levels` times, then runs `leaf` (the benchmark loop) at the
// bottom. The empty asm after the call keeps the compiler from turning the
// recursion into a loop or a tail call: every level is a real frame.
__attribute__((noinline)) int call_chain(int levels, Leaf leaf, benchmark::State& state) {
  if (levels <= 1) {
    leaf(state);
    return 1;
  }
  const int below = call_chain(levels - 1, leaf, state);
  asm volatile("" ::: "memory");
  return below + 1;
}

// Frames from the caller of this function to the root of the thread (the
// benchmark framework, main and libc's start-up included).
__attribute__((noinline)) int frames_above() {
  void* frames[LUMEN_MAX_STACK_DEPTH + 16];
  return unw_backtrace(frames, static_cast<int>(std::size(frames))) - 1;
}

// ---- BM_StackTableLookup: interning a stack already in the table ----

// `distinct` stacks of `depth` frames that share their root half (as the
// stacks of one program do) and differ towards the leaf, as plausible
// return addresses in a 4 MiB text segment.
std::vector<std::vector<uint64_t>> make_stacks(uint32_t depth, uint32_t distinct, uint64_t salt) {
  std::vector<std::vector<uint64_t>> stacks(distinct, std::vector<uint64_t>(depth));
  uint64_t state = 0x2545f4914f6cdd1dull ^ (salt * 0x9e3779b97f4a7c15ull);
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  std::vector<uint64_t> root(depth);
  for (uint64_t& pc : root) pc = 0x555555554000ull + next() % (4u << 20);
  for (auto& stack : stacks)
    for (uint32_t i = 0; i < depth; ++i) stack[i] = i >= depth / 2 ? root[i] : 0x555555554000ull + next() % (4u << 20);
  return stacks;
}

void BM_StackTableLookup(benchmark::State& state) {
  const auto depth = static_cast<uint32_t>(state.range(0));
  const auto distinct = static_cast<uint32_t>(state.range(1));
  const auto stacks = make_stacks(depth, distinct, depth * 7919u + distinct);
  for (const auto& stack : stacks)
    if (lc::stack_table_intern(stack.data(), depth, 0) == LUMEN_NO_STACK) {
      state.SkipWithError("the stack table refused a stack");
      return;
    }
  size_t next = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(lc::stack_table_intern(stacks[next].data(), depth, 0));
    if (++next == distinct) next = 0;
  }
  state.SetItemsProcessed(state.iterations());
}
// One hot stack (the table entry stays in cache), and 4096 stacks visited in
// turn (entries mostly out of L1, as in a program with many distinct stacks).
BENCHMARK(BM_StackTableLookup)->ArgNames({"depth", "stacks"})->ArgsProduct({{8, 16, 32}, {1, 4096}});

// ---- BM_UnwBacktrace / BM_CaptureStack: unwinding the calling thread ----

int g_frames = 0;  // measured by the leaf, reported as a counter

void unw_backtrace_leaf(benchmark::State& state) {
  g_frames = frames_above();
  void* frames[LUMEN_MAX_STACK_DEPTH + 16];
  for (auto _ : state) {
    benchmark::DoNotOptimize(unw_backtrace(frames, static_cast<int>(std::size(frames))));
    benchmark::ClobberMemory();
  }
}

// libunwind's walk alone (its per-thread trace cache, as the runtime sets it
// up), to split capture_stack's cost into unwinding and interning.
void BM_UnwBacktrace(benchmark::State& state) {
  call_chain(static_cast<int>(state.range(0)), unw_backtrace_leaf, state);
  state.counters["frames"] = g_frames;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UnwBacktrace)->ArgName("chain")->Arg(10)->Arg(30);

void capture_stack_leaf(benchmark::State& state) {
  g_frames = frames_above();
  if (lc::capture_stack(nullptr, 0) == LUMEN_NO_STACK) {
    state.SkipWithError("capture_stack captured nothing");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(lc::capture_stack(nullptr, 0));
}

// One capture_stack(nullptr, 0), as an interposer calls it: unw_backtrace
// plus interning a stack that is already in the table after the first call.
void BM_CaptureStack(benchmark::State& state) {
  call_chain(static_cast<int>(state.range(0)), capture_stack_leaf, state);
  state.counters["frames"] = g_frames;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CaptureStack)->ArgName("chain")->Arg(10)->Arg(30);

// ---- BM_WriteRecord: one 40-byte record into a stream ----

// Includes, amortised, mapping a fresh 64 KiB block every 1,489 records
// (a pwrite to extend the file, mmap, munmap of the old block) and the page
// faults on the new block's pages.
void BM_WriteRecord(benchmark::State& state) {
  ClockSplitSample sample{};
  sample.thread_id = lc::current_tid();
  sample.user_ns = 10'000'000;
  uint64_t dropped = 0;
  for (auto _ : state) {
    ++sample.time_ns;
    if (!lc::write_record(g_records_stream, lumen::clock::kSplitSampleRecord, &sample, sizeof sample)) ++dropped;
  }
  state.counters["dropped"] = static_cast<double>(dropped);
  state.SetItemsProcessed(state.iterations());
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(lumen_record_span(sizeof sample)));
}
BENCHMARK(BM_WriteRecord);

// ---- BM_StampClockGettime, BM_StampTsc: one time stamp ----

// clock_gettime(CLOCK_MONOTONIC), what every stamp was, against the TSC
// clock's curve (tsc_clock.h), a line redrawn each period included.
void BM_StampClockGettime(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(lc::monotonic_ns());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StampClockGettime);

void BM_StampTsc(benchmark::State& state) {
  lc::tsc_clock_init();
  for (auto _ : state) benchmark::DoNotOptimize(lc::tsc_now_ns());
  state.counters["tsc"] = lc::tsc_clock_report().tsc ? 1 : 0;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StampTsc);

// ---- BM_WriteRecordAmongWork: a record now and then, as a traced call writes ----

// A traced call writes one record between stretches of the program's own
// work; what the record adds there is not what back-to-back writes cost
// (those wait on the memory system's bandwidth for fresh lines). The work
// is a dependent chain of multiplies, `range(0)` long, first alone and then
// with one record after each stretch: the difference is the record's cost.
uint64_t multiply_chain(uint64_t x, int64_t length) {
  for (int64_t i = 0; i < length; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
  return x;
}

void BM_WorkAlone(benchmark::State& state) {
  uint64_t x = 1;
  for (auto _ : state) benchmark::DoNotOptimize(x = multiply_chain(x, state.range(0)));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WorkAlone)->ArgName("work")->Arg(200)->Arg(1000);

void BM_WriteRecordAmongWork(benchmark::State& state) {
  ClockSplitSample sample{};
  sample.thread_id = lc::current_tid();
  uint64_t x = 1, dropped = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(x = multiply_chain(x, state.range(0)));
    sample.time_ns = x;
    if (!lc::write_record(g_records_stream, lumen::clock::kSplitSampleRecord, &sample, sizeof sample)) ++dropped;
  }
  state.counters["dropped"] = static_cast<double>(dropped);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_WriteRecordAmongWork)->ArgName("work")->Arg(200)->Arg(1000);

// ---- BM_SamplePacket: one sample point (rusage, resident set, record) ----

// What the runtime does for each periodic, signal or API sample point:
// getrusage, a pread of /proc/self/statm, and one 88-byte record (more
// with a name). Measured through the runtime's own record_sample.
void BM_SamplePacket(benchmark::State& state) {
  static const bool started = [] {
    lumen::metadata::CollectionPlan plan;
    plan.runtime.sample_period_ns = 0;  // no timer: each iteration is one sample point
    lc::samples_start(lc::open_stream(g_directory.c_str(), LUMEN_SAMPLES_FILE), plan);
    return true;
  }();
  const char* name = state.range(0) ? "a sample point's name" : nullptr;
  const uint64_t dropped_before = lc::dropped_records();
  for (auto _ : state) lc::record_sample(LUMEN_SAMPLE_API, name);
  state.counters["dropped"] = static_cast<double>(lc::dropped_records() - dropped_before);
  state.counters["started"] = started;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SamplePacket)->ArgName("named")->Arg(0)->Arg(1);

// ---- BM_RaiseEmptyHandler / BM_SampleSignal: one whole sample ----

std::atomic<uint64_t> g_no_stack{0};

uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

void empty_handler(int, siginfo_t*, void*) {}

// What the runtime's dispatcher and the clock plugin's handler do for one
// timer expiry (plugins/clock/collector/clock_collector.cpp), minus the two
// indirect calls through the runtime's table: the thread's rusage read for
// the user/system split, the stack, one record.
void sample_handler(int, siginfo_t* info, void* ucontext) {
  const int saved_errno = errno;
  ClockSplitSample sample;
  sample.time_ns = monotonic_ns();
  sample.stack_id = lc::capture_stack(ucontext, 0);
  const uint64_t cpu_ns = 10'000'000ull * (1u + static_cast<uint32_t>(info->si_overrun));
  rusage usage;
  syscall(SYS_getrusage, RUSAGE_THREAD, &usage);
  sample.system_ns = static_cast<uint64_t>(usage.ru_stime.tv_usec) % cpu_ns;
  sample.user_ns = cpu_ns - sample.system_ns;
  sample.thread_id = lc::current_tid();
  sample.cpu = sched_getcpu();
  if (sample.stack_id == LUMEN_NO_STACK) g_no_stack.fetch_add(1, std::memory_order_relaxed);
  lc::write_record(g_profile_stream, lumen::clock::kSplitSampleRecord, &sample, sizeof sample);
  errno = saved_errno;
}

// The system call the clock handler adds for the user/system split.
void BM_ThreadRusage(benchmark::State& state) {
  rusage usage;
  for (auto _ : state) {
    syscall(SYS_getrusage, RUSAGE_THREAD, &usage);
    benchmark::DoNotOptimize(usage);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ThreadRusage);

// Whether unw_backtrace, called in a handler, walks through the signal frame
// to the interrupted instruction (capture_stack's fast path) or not (its
// slow path steps a libunwind cursor from the ucontext).
std::atomic<int> g_fast_path{-1};

void probe_handler(int, siginfo_t*, void* ucontext) {
  void* frames[LUMEN_MAX_STACK_DEPTH + 16];
  const int count = unw_backtrace(frames, static_cast<int>(std::size(frames)));
  const auto interrupted = static_cast<uint64_t>(static_cast<ucontext_t*>(ucontext)->uc_mcontext.gregs[REG_RIP]);
  int found = 0;
  for (int i = 0; i < count; ++i)
    if (reinterpret_cast<uint64_t>(frames[i]) == interrupted) found = 1;
  g_fast_path.store(found);
}

struct HandlerScope {
  struct sigaction previous {};
  explicit HandlerScope(void (*handler)(int, siginfo_t*, void*)) {
    struct sigaction action {};
    action.sa_sigaction = handler;
    action.sa_flags = SA_SIGINFO | SA_RESTART;  // as the runtime installs its dispatcher
    sigemptyset(&action.sa_mask);
    sigaction(SIGPROF, &action, &previous);
  }
  ~HandlerScope() { sigaction(SIGPROF, &previous, nullptr); }
};

void raise_leaf(benchmark::State& state) {
  g_frames = frames_above();
  for (auto _ : state) raise(SIGPROF);
}

// The cost of the signal itself: raise (pthread_kill: block signals, tgkill,
// restore the mask), delivery, the handler's frame, rt_sigreturn.
void BM_RaiseEmptyHandler(benchmark::State& state) {
  HandlerScope scope(empty_handler);
  call_chain(static_cast<int>(state.range(0)), raise_leaf, state);
  state.counters["frames"] = g_frames;
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_RaiseEmptyHandler)->ArgName("chain")->Arg(10)->Arg(30);

// The same signal with the clock plugin's work in the handler: the
// difference from BM_RaiseEmptyHandler is what a sample adds.
void BM_SampleSignal(benchmark::State& state) {
  {
    HandlerScope probe(probe_handler);
    raise(SIGPROF);
  }
  HandlerScope scope(sample_handler);
  g_no_stack.store(0);
  call_chain(static_cast<int>(state.range(0)), raise_leaf, state);
  state.counters["frames"] = g_frames;
  state.counters["fast_path"] = g_fast_path.load();
  state.counters["no_stack"] = static_cast<double>(g_no_stack.load());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SampleSignal)->ArgName("chain")->Arg(10)->Arg(30);

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!set_up_experiment()) {
    remove_experiment();
    return 1;
  }
  benchmark::AddCustomContext("experiment", g_directory);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  remove_experiment();
  return 0;
}
