// Writes an experiment holding cycles and insts overflow records, as
// `collect -h cycles,...,insts,...` would on a machine with a hardware PMU,
// for the CPI/IPC test on machines without one. The data files are written
// with the runtime's own record writer and stack table; the stacks are made
// of addresses in this program's functions, so er_print symbolizes them as
// it would a target's. Usage: hwc_counter_experiment DIRECTORY.er [--other]
// (--other: the counters of truth::kOtherCounters).
#include <link.h>
#include <lumen/record_format.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "../hwc_record.h"
#include "counter_ratio_truth.h"
#include "stacks/stack_table.h"
#include "recording/stream_writer.h"

// The functions the stacks name. Distinct bodies, so no two are folded into
// one address.
extern "C" __attribute__((noinline)) int ratio_alpha(int x) { return x * 3 + 1; }
extern "C" __attribute__((noinline)) int ratio_beta(int x) { return x * 5 - 2; }
extern "C" __attribute__((noinline)) int ratio_gamma(int x) { return x ^ 0x5a5a; }
extern "C" __attribute__((noinline)) int ratio_root(int x) { return ratio_alpha(x) + ratio_gamma(x); }

namespace {

using namespace lumen;
using hwc::truth::LeafCounts;

uint64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}

// An address inside `function` (a leaf PC, or a return address: analysis
// looks those up one byte before).
uint64_t inside(const void* function) { return reinterpret_cast<uint64_t>(function) + 1; }

// The load-object record of this executable, as the runtime writes it.
void record_this_executable(int stream) {
  struct Found {
    uint64_t bias = 0, start = UINT64_MAX, end = 0;
  } found;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* opaque) {
        if (info->dlpi_name != nullptr && info->dlpi_name[0] != '\0') return 0;  // the executable comes first, unnamed
        auto* f = static_cast<Found*>(opaque);
        f->bias = info->dlpi_addr;
        for (int i = 0; i < info->dlpi_phnum; ++i) {
          const ElfW(Phdr)& p = info->dlpi_phdr[i];
          if (p.p_type != PT_LOAD) continue;
          f->start = std::min<uint64_t>(f->start, info->dlpi_addr + p.p_vaddr);
          f->end = std::max<uint64_t>(f->end, info->dlpi_addr + p.p_vaddr + p.p_memsz);
        }
        return 1;
      },
      &found);
  const std::string path = std::filesystem::read_symlink("/proc/self/exe").string();
  std::string record(sizeof(lumen_loadobject_record), '\0');
  lumen_loadobject_record lo{now_ns(), found.bias, found.start, found.end, LUMEN_LOADOBJECT_MAPPED,
                             static_cast<uint32_t>(path.size())};
  std::memcpy(record.data(), &lo, sizeof lo);
  record += path;
  collector::write_record(stream, LUMEN_RECORD_LOADOBJECT, record.data(), static_cast<uint16_t>(record.size()));
}

void write_overflow(int stream, uint64_t stack_id, uint32_t counter, uint64_t count, uint16_t flags) {
  hwc::CounterOverflow record{now_ns(), stack_id, count, static_cast<uint32_t>(gettid()),
                              static_cast<uint16_t>(counter), flags};
  collector::write_record(stream, hwc::kOverflowRecord, &record, sizeof record);
}

// A function's counts of counters 0 and 1 as three overflow records of
// each, interleaved.
void write_counts(int stream, uint64_t stack_id, uint64_t first, uint64_t second, uint16_t flags = 0) {
  for (int part = 0; part < 3; ++part) {
    write_overflow(stream, stack_id, 0, first / 3 + (part == 2 ? first % 3 : 0), flags);
    write_overflow(stream, stack_id, 1, second / 3 + (part == 2 ? second % 3 : 0), flags);
  }
}
void write_counts(int stream, uint64_t stack_id, const LeafCounts& counts, uint16_t flags = 0) {
  write_counts(stream, stack_id, counts.cycles, counts.instructions, flags);
}
void write_counts(int stream, uint64_t stack_id, const hwc::truth::OtherCounts& counts) {
  write_counts(stream, stack_id, counts.branches, counts.cycles);
}

void write_header(const std::filesystem::path& experiment, uint64_t start_ns, const char* counters) {
  std::ofstream header(experiment / "header.yaml");
  header << "format: {major: " << LUMEN_FORMAT_MAJOR << ", minor: " << LUMEN_FORMAT_MINOR << "}\n"
         << "command: [hwc_counter_experiment]\n"
         << "host: " << "written\n"
         << "cpus: 1\n"
         << "clock_mhz: " << hwc::truth::kClockMhz << "\n"
         << "start_monotonic_ns: " << start_ns << "\n"
         << "target_pid: " << getpid() << "\n"
         << "plugins:\n"
         << "  hwc:\n"
         << "    version: 1.0\n"
         << "    data_file: " << hwc::kDataFile << "\n"
         << "    options: {counters: \"" << counters << "\"}\n"
         << "target_end: {exit_code: 0}\n";
}

}  // namespace

int main(int argc, char** argv) {
  const bool other = argc == 3 && std::strcmp(argv[2], "--other") == 0;
  if (argc != 2 && !other) {
    std::fprintf(stderr, "usage: %s DIRECTORY.er [--other]\n", argv[0]);
    return 2;
  }
  const std::filesystem::path experiment = argv[1];
  std::filesystem::create_directories(experiment);
  const uint64_t start_ns = now_ns();
  const int stacks = collector::open_stream(experiment.c_str(), LUMEN_STACKS_FILE);
  const int loadobjects = collector::open_stream(experiment.c_str(), LUMEN_LOADOBJECTS_FILE);
  const int counters = collector::open_stream(experiment.c_str(), hwc::kDataFile);
  if (stacks < 0 || loadobjects < 0 || counters < 0 || !collector::stack_table_init(stacks)) {
    std::fprintf(stderr, "cannot create the data files in %s\n", experiment.c_str());
    return 1;
  }
  record_this_executable(loadobjects);
  const uint64_t alpha[] = {inside(reinterpret_cast<void*>(ratio_alpha)), inside(reinterpret_cast<void*>(ratio_root))};
  const uint64_t beta[] = {inside(reinterpret_cast<void*>(ratio_beta)), inside(reinterpret_cast<void*>(ratio_alpha)),
                           inside(reinterpret_cast<void*>(ratio_root))};
  const uint64_t gamma[] = {inside(reinterpret_cast<void*>(ratio_gamma)), inside(reinterpret_cast<void*>(ratio_root))};
  if (other) {
    write_counts(counters, collector::stack_table_intern(alpha, 2, 0), hwc::truth::kOtherAlpha);
    write_counts(counters, collector::stack_table_intern(beta, 3, 0), hwc::truth::kOtherBeta);
    write_counts(counters, collector::stack_table_intern(gamma, 2, 0), hwc::truth::kOtherGamma);
  } else {
    write_counts(counters, collector::stack_table_intern(alpha, 2, 0), hwc::truth::kAlpha);
    write_counts(counters, collector::stack_table_intern(beta, 3, 0), hwc::truth::kBeta);
    write_counts(counters, collector::stack_table_intern(gamma, 2, 0), hwc::truth::kGamma);
    write_counts(counters, LUMEN_NO_STACK, hwc::truth::kFinal, hwc::kFinalCounts);
  }
  collector::finish_thread_streams();
  write_header(experiment, start_ns, other ? hwc::truth::kOtherCounters : hwc::truth::kCounters);
  return collector::dropped_records() == 0 ? 0 : 1;
}
