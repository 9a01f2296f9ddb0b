// er_kernel's parts that need no kernel: reading kallsyms, the kernel's
// sampling records, the options, and a process image's experiment as
// er_print's reader sees it.
#include <gtest/gtest.h>
#include <linux/perf_event.h>

#include <cstring>
#include <sstream>

#include "kernel_options.h"
#include "kernel_symbols.h"
#include "loadobject_map.h"
#include "perf_records.h"
#include "process_image.h"
#include "system_recording.h"
#include "test_support.h"

namespace lumen::kernel {
namespace {

TEST(KernelSymbols, EachTextSymbolEndsWhereTheNextBeginsAndModulesAreObjects) {
  std::istringstream kallsyms(
      "ffffffff81000000 T _stext\n"
      "ffffffff81000080 T entry_SYSCALL_64\n"
      "ffffffff81382730 t __do_sys_getpid\n"
      "ffffffff81382730 T __ia32_sys_getpid\n"
      "ffffffff81382730 T __x64_sys_getpid\n"
      "ffffffff81382760 D some_data\n"
      "ffffffff81382800 T next_function\n"
      "ffffffffc0001000 t ext4_read\t[ext4]\n"
      "ffffffffc0001100 t ext4_write\t[ext4]\n");
  KernelSymbols symbols;
  symbols.read(kallsyms);
  EXPECT_FALSE(symbols.hidden());
  const KernelFunction* getpid = symbols.find(0xffffffff81382740);
  ASSERT_NE(getpid, nullptr);
  EXPECT_EQ(getpid->name, "__x64_sys_getpid");  // the global 64-bit entry of the aliases
  EXPECT_EQ(getpid->end, 0xffffffff81382800u);   // data symbols do not end a function
  EXPECT_EQ(getpid->object, kKernelObject);
  const KernelFunction* read = symbols.find(0xffffffffc0001010);
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->name, "ext4_read");
  EXPECT_EQ(read->object, "ext4");
  EXPECT_EQ(symbols.find(0xffffffff80000000), nullptr);
  // The last function of a module ends within a page, not at the next region.
  EXPECT_EQ(symbols.find(0xffffffffc0001100 + 8192), nullptr);
}

TEST(KernelSymbols, AddressesHiddenFromThisUserAreSaidSo) {
  std::istringstream kallsyms("0000000000000000 T _stext\n0000000000000000 T entry_SYSCALL_64\n");
  KernelSymbols symbols;
  symbols.read(kallsyms);
  EXPECT_TRUE(symbols.hidden());
  EXPECT_EQ(symbols.size(), 0u);
}

RawPerfRecord record_of(uint32_t type, uint16_t misc, const std::vector<uint64_t>& words) {
  RawPerfRecord r;
  perf_event_header header{type, misc, static_cast<uint16_t>(sizeof header + words.size() * 8)};
  r.bytes.resize(header.size);
  std::memcpy(r.bytes.data(), &header, sizeof header);
  std::memcpy(r.bytes.data() + sizeof header, words.data(), words.size() * 8);
  return r;
}

TEST(PerfRecords, ASampleSplitsItsCallChainIntoKernelAndUserFrames) {
  const uint64_t pid_tid = (uint64_t{42} << 32) | 41;  // pid 41, tid 42
  const RawPerfRecord r = record_of(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_KERNEL,
                                    {0xffffffff81000100, pid_tid, 123456789, 1, 1000000, 6,
                                     static_cast<uint64_t>(PERF_CONTEXT_KERNEL), 0xffffffff81000100,
                                     0xffffffff81000200, static_cast<uint64_t>(PERF_CONTEXT_USER), 0x401000, 0x402000});
  const auto event = parse(r);
  ASSERT_TRUE(event.has_value());
  const Sample& s = std::get<Sample>(*event);
  EXPECT_EQ(s.pid, 41u);
  EXPECT_EQ(s.tid, 42u);
  EXPECT_EQ(s.time_ns, 123456789u);
  EXPECT_EQ(s.cpu, 1u);
  EXPECT_EQ(s.period_ns, 1000000u);
  EXPECT_TRUE(s.in_kernel);
  EXPECT_EQ(s.kernel_pcs, (std::vector<uint64_t>{0xffffffff81000100, 0xffffffff81000200}));
  EXPECT_EQ(s.user_pcs, (std::vector<uint64_t>{0x401000, 0x402000}));
}

TEST(PerfRecords, ARecordShorterThanItsKindHoldsIsNone) {
  // A call chain claiming more frames than the record holds.
  const RawPerfRecord r = record_of(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, {0x401000, 1, 2, 0, 1000, 50, 0x401000});
  EXPECT_FALSE(parse(r).has_value());
  EXPECT_FALSE(parse(record_of(PERF_RECORD_FORK, 0, {1})).has_value());
}

TEST(PerfRecords, AMappingCarriesItsPathAndTheTimeOfItsSampleId) {
  std::vector<uint64_t> words{(uint64_t{7} << 32) | 7, 0x7f0000001000, 0x2000, 0x1000, 0, 0, 0, 0};
  const char path[16] = "/usr/lib/x.so";
  uint64_t packed[2];
  std::memcpy(packed, path, sizeof packed);
  words.push_back(packed[0]);
  words.push_back(packed[1]);
  words.push_back((uint64_t{7} << 32) | 7);  // sample_id: pid, tid
  words.push_back(555);                      // time
  words.push_back(0);                        // cpu
  const auto event = parse(record_of(PERF_RECORD_MMAP2, 0, words));
  ASSERT_TRUE(event.has_value());
  const Mapping& m = std::get<Mapping>(*event);
  EXPECT_EQ(m.path, "/usr/lib/x.so");
  EXPECT_EQ(m.start, 0x7f0000001000u);
  EXPECT_EQ(m.file_offset, 0x1000u);
  EXPECT_EQ(m.time_ns, 555u);
}

TEST(KernelOptions, RatesDurationsAndCommands) {
  KernelOptions o = parse_kernel_options({"-p", "hi", "-t", "2.5", "--", "ls", "-l"});
  EXPECT_EQ(o.interval_ns, 1'000'000u);
  EXPECT_DOUBLE_EQ(*o.duration_s, 2.5);
  EXPECT_EQ(o.command, (std::vector<std::string>{"ls", "-l"}));
  EXPECT_EQ(parse_kernel_options({"-p", "0.5"}).interval_ns, 500'000u);
  EXPECT_THROW(parse_kernel_options({"-p", "0"}), KernelUsageError);
  EXPECT_THROW(parse_kernel_options({"-p", "fast"}), KernelUsageError);
  EXPECT_THROW(parse_kernel_options({"-t", "-1"}), KernelUsageError);
  EXPECT_THROW(parse_kernel_options({"-x"}), KernelUsageError);
  EXPECT_THROW(parse_kernel_options({"--"}), KernelUsageError);
}

TEST(MappedFiles, TheBiasIsTheExecutableSegmentsEvenWhereAReadOnlyOneSharesItsFirstPage) {
  // lld's layout: a read-only segment at offset 0, the code right after it
  // in the file (offset 0x570) but a page further in memory; ld.so maps the
  // code's page from offset 0 at base + 0x1000.
  const uint64_t base = 0x7f0000000000;
  const std::vector<MappedFiles::Segment> lld{{0, 0x570, 0, false}, {0x570, 0x2000, 0x1570, true}};
  EXPECT_EQ(MappedFiles::bias_of(lld, base + 0x1000, 0, 4096), base);
  // GNU ld's: each segment on a page of its own.
  const std::vector<MappedFiles::Segment> gnu{{0, 0x600, 0, false}, {0x1000, 0x2000, 0x1000, true}};
  EXPECT_EQ(MappedFiles::bias_of(gnu, base + 0x1000, 0x1000, 4096), base);
  // A non-PIE program: linked at 0x400000 and mapped there.
  const std::vector<MappedFiles::Segment> fixed{{0, 0x3000, 0x400000, true}};
  EXPECT_EQ(MappedFiles::bias_of(fixed, 0x400000, 0, 4096), 0u);
  // An offset no executable segment holds: no bias.
  EXPECT_FALSE(MappedFiles::bias_of(gnu, base, 0, 4096).has_value());
}

TEST(SystemRecording, AForkIsAProcessWithItsParentsMappingsAndAnExecANewImage) {
  test::TempDir dir;
  std::istringstream kallsyms("ffffffff81000000 T entry\n");
  KernelSymbols kernel;
  kernel.read(kallsyms);
  metadata::CollectionPlan plan;
  SystemRecording recording(dir.path(), plan, 0, 0, kernel);
  // Pids above any pid_max: no /proc entry answers for them.
  const uint32_t parent = 4'500'000, child = 4'500'001;
  recording.handle(Mapping{parent, parent, 10, 0x400000, 0x1000, 0, "/nonexistent/program"});
  recording.handle(Fork{child, parent, child, 20});
  Sample before_exec;
  before_exec.pid = before_exec.tid = child;
  before_exec.time_ns = 30;
  before_exec.period_ns = 1000;
  before_exec.user_pcs = {0x400010};
  recording.handle(before_exec);
  recording.handle(Command{child, child, 40, true, "other"});
  Sample after_exec = before_exec;
  after_exec.time_ns = 50;
  after_exec.in_kernel = true;
  after_exec.kernel_pcs = {0xffffffff81000004};
  recording.handle(after_exec);
  const RecordingTotals totals = recording.finish(60);
  EXPECT_EQ(totals.samples, 2u);
  EXPECT_EQ(totals.processes, 2u);
  const std::string forked = "_pid" + std::to_string(child) + ".er", exec = "_pid" + std::to_string(child) + "_x1.er";
  ASSERT_TRUE(std::filesystem::exists(dir.path() / forked / "header.yaml"));
  ASSERT_TRUE(std::filesystem::exists(dir.path() / exec / "header.yaml"));
  EXPECT_FALSE(std::filesystem::exists(dir.path() / ("_pid" + std::to_string(parent) + ".er")));  // never sampled
  // The child before its exec maps its parent's program; after, nothing yet.
  analysis::LoadObjectMap before, after;
  before.load(dir.path() / forked / "loadobjects");
  after.load(dir.path() / exec / "loadobjects");
  ASSERT_EQ(before.objects().size(), 1u);
  EXPECT_EQ(before.objects()[0].path, "/nonexistent/program");
  EXPECT_TRUE(after.objects().empty());
  ASSERT_NE(after.find_dynamic(0xffffffff81000004), nullptr);
  EXPECT_EQ(after.find_dynamic(0xffffffff81000004)->name, "entry");
}

TEST(ProcessImage, KernelFunctionsAreDescribedCodeOfTheirObjects) {
  test::TempDir dir;
  std::istringstream kallsyms("ffffffff81000000 T first\nffffffff81000100 T second\nffffffffc0000000 t mod_fn [mod]\n");
  KernelSymbols kernel;
  kernel.read(kallsyms);
  MappedFiles files;
  metadata::ProcessFacts facts;
  facts.command = {"prog"};
  facts.target_pid = 9;
  facts.lineage = "_pid9";
  ProcessImage image(dir.path() / "_pid9.er", facts);
  image.sample(9, 1000, 0, 0, 1000000, {0xffffffff81000010, 0xffffffffc0000004}, false, kernel, files);
  metadata::CollectionPlan plan;
  image.finish(plan, nullptr, 2000);
  analysis::LoadObjectMap map;
  map.load(dir.path() / "_pid9.er" / "loadobjects");
  const analysis::DynamicFunction* first = map.find_dynamic(0xffffffff81000010);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->name, "first");
  EXPECT_EQ(first->object, kKernelObject);
  const analysis::DynamicFunction* module = map.find_dynamic(0xffffffffc0000004);
  ASSERT_NE(module, nullptr);
  EXPECT_EQ(module->object, "mod");
  EXPECT_EQ(map.find_dynamic(0xffffffff81000100), nullptr);  // sampled nowhere: not described
}

}  // namespace
}  // namespace lumen::kernel
