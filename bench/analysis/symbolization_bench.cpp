// What symbolizing one distinct PC costs the analysis (ObjectSymbols): its
// function (lookup), its source line (source_line), its inlined functions
// (inline_chain), and all three, as er_print pays them for a stacks file of
// N distinct PCs. The PCs are spread evenly over the object's code and each
// is asked once; opening the object and reading its tables are in the
// figure, as they are in a view.
//
//   symbolization_bench [--object=PATH] [benchmark flags]
//   symbolization_bench [--object=PATH] --print-addresses=N
// PATH defaults to this process's libc (with its debug file where one is
// installed, libc6-dbg). --print-addresses prints the first N PCs the
// benchmark asks, in hex, one a line, for addr2line and the like.
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "object_symbols.h"

namespace {

using lumen::analysis::ObjectSymbols;

std::string g_object;

std::string this_process_libc() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&std::printf), &info) == 0 || info.dli_fname == nullptr) return "";
  return info.dli_fname;
}

struct CodeRange {
  uint64_t start;
  uint64_t size;
};

// The object's executable sections, by their file addresses.
std::vector<CodeRange> code_ranges(const std::string& path) {
  std::vector<CodeRange> ranges;
  elf_version(EV_CURRENT);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ranges;
  Elf* elf = elf_begin(fd, ELF_C_READ, nullptr);
  for (Elf_Scn* scn = elf != nullptr ? elf_nextscn(elf, nullptr) : nullptr; scn != nullptr;
       scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header;
    if (gelf_getshdr(scn, &header) != nullptr && header.sh_type == SHT_PROGBITS && (header.sh_flags & SHF_EXECINSTR) &&
        header.sh_size > 0)
      ranges.push_back({header.sh_addr, header.sh_size});
  }
  if (elf != nullptr) elf_end(elf);
  close(fd);
  return ranges;
}

// `count` distinct addresses, evenly spaced over the object's code (fewer
// when it has fewer bytes of code).
std::vector<uint64_t> spread_addresses(const std::string& path, size_t count) {
  const std::vector<CodeRange> ranges = code_ranges(path);
  uint64_t total = 0;
  for (const CodeRange& range : ranges) total += range.size;
  std::vector<uint64_t> addresses;
  if (total == 0 || count == 0) return addresses;
  const double step = static_cast<double>(total) / static_cast<double>(count);
  size_t range = 0;
  uint64_t before = 0;  // bytes of code in the ranges before `range`
  for (size_t i = 0; i < count; ++i) {
    const uint64_t at = static_cast<uint64_t>(static_cast<double>(i) * step);
    while (at >= before + ranges[range].size) before += ranges[range++].size;
    const uint64_t address = ranges[range].start + (at - before);
    if (addresses.empty() || addresses.back() != address) addresses.push_back(address);
  }
  return addresses;
}

enum Ask { kFunction = 1, kLine = 2, kInlined = 4 };

void symbolize_distinct_pcs(benchmark::State& state, int ask) {
  const std::vector<uint64_t> addresses = spread_addresses(g_object, static_cast<size_t>(state.range(0)));
  if (addresses.empty()) {
    state.SkipWithError(("no code in " + g_object).c_str());
    return;
  }
  size_t named = 0;
  for (auto _ : state) {
    ObjectSymbols symbols(g_object);  // a fresh object: every PC is a first lookup
    named = 0;
    for (const uint64_t address : addresses) {
      if (ask & kFunction) named += symbols.lookup(address).has_value();
      if (ask & kLine) named += symbols.source_line(address).has_value();
      if (ask & kInlined) named += !symbols.inline_chain(address).empty();
    }
    benchmark::DoNotOptimize(named);
  }
  const double pcs = static_cast<double>(addresses.size());
  state.counters["pcs"] = pcs;
  state.counters["answered"] = static_cast<double>(named);  // with an answer, summed over what was asked
  state.counters["per_pc"] = benchmark::Counter(pcs, benchmark::Counter::kIsIterationInvariantRate |
                                                         benchmark::Counter::kInvert);
}

void BM_FunctionOfDistinctPcs(benchmark::State& state) { symbolize_distinct_pcs(state, kFunction); }
void BM_LineOfDistinctPcs(benchmark::State& state) { symbolize_distinct_pcs(state, kLine); }
void BM_InlineChainOfDistinctPcs(benchmark::State& state) { symbolize_distinct_pcs(state, kInlined); }
void BM_AllOfDistinctPcs(benchmark::State& state) { symbolize_distinct_pcs(state, kFunction | kLine | kInlined); }

void distinct_pc_counts(benchmark::internal::Benchmark* b) {
  b->ArgName("pcs")->Arg(1000)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->MinTime(1.0);
}
BENCHMARK(BM_FunctionOfDistinctPcs)->Apply(distinct_pc_counts);
BENCHMARK(BM_LineOfDistinctPcs)->Apply(distinct_pc_counts);
BENCHMARK(BM_InlineChainOfDistinctPcs)->Apply(distinct_pc_counts);
BENCHMARK(BM_AllOfDistinctPcs)->Apply(distinct_pc_counts);

// The option's value, when argv[i] is "--NAME=VALUE".
const char* option(const char* arg, const char* name) {
  const size_t n = std::strlen(name);
  return std::strncmp(arg, name, n) == 0 && arg[n] == '=' ? arg + n + 1 : nullptr;
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  g_object = this_process_libc();
  long print_count = -1;
  for (int i = 1; i < argc; ++i) {
    if (const char* path = option(argv[i], "--object")) {
      g_object = path;
    } else if (const char* count = option(argv[i], "--print-addresses")) {
      print_count = std::strtol(count, nullptr, 10);
    } else {
      std::fprintf(stderr, "symbolization_bench: unknown argument %s\n", argv[i]);
      return 1;
    }
  }
  if (print_count >= 0) {
    for (const uint64_t address : spread_addresses(g_object, static_cast<size_t>(print_count)))
      std::printf("%#llx\n", static_cast<unsigned long long>(address));
    return 0;
  }
  benchmark::AddCustomContext("object", g_object);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
