// JIT-compiled Java methods' machine code end to end: a real JVM
// (JavaHotMethods) under the real collector; in machine mode -disasm of a
// compiled method lists the instructions the JIT installed, at their
// addresses, each with the metrics of the samples whose PC fell on it, and
// the method's source lines and bytecode indexes from the JIT's PC map. A
// damaged code record is an error naming the file and the record.
#include <gtest/gtest.h>
#include <lumen/record_format.h>

#include <cstring>
#include <fstream>
#include <set>
#include <vector>

#include "../java_record.h"
#include "java_test_run.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

// The compiled versions of spinBeta: "JavaHotMethods.spinBeta(long) [compiled N]".
const std::string kCompiled = "JavaHotMethods.spinBeta(long) [compiled ";

double metric(const nlohmann::json& row, const char* key) { return row.at("values").at(key).get<double>(); }

// The rows of -disasm grouped by function heading: each compiled version of
// the method is a function of its own.
struct Listing {
  uint64_t start = 0;
  std::vector<nlohmann::json> instructions;
  std::vector<std::string> sources;
};
std::vector<Listing> listings(const nlohmann::json& disasm) {
  std::vector<Listing> out;
  for (const auto& row : disasm.at("rows")) {
    const std::string kind = row.at("kind").get<std::string>();
    if (kind == "function") out.push_back({std::stoull(row.at("address").get<std::string>(), nullptr, 16), {}, {}});
    else if (kind == "instruction" && !out.empty()) out.back().instructions.push_back(row);
    else if (kind == "source" && !out.empty()) out.back().sources.push_back(row.at("name").get<std::string>());
  }
  return out;
}

// The mnemonic of an instruction row "0x7f...:  vdivsd xmm0, xmm1, xmm2  ; bci 12".
std::string mnemonic(const nlohmann::json& row) {
  const std::string name = row.at("name").get<std::string>();
  const size_t at = name.find(":  ");
  if (at == std::string::npos) return "";
  const size_t end = name.find(' ', at + 3);
  return name.substr(at + 3, end == std::string::npos ? std::string::npos : end - at - 3);
}

class JavaMachineCode : public JavaHotMethodsSuite {
 protected:
  static nlohmann::json machine(const std::vector<std::string>& args) {
    std::vector<std::string> all{"-viewmode", "machine", "-addpath", JAVA_TEST_SOURCE_DIR, "-metrics", "e.totalcpu:name"};
    all.insert(all.end(), args.begin(), args.end());
    return er_print_json(all, run_->experiment);
  }
};

TEST_F(JavaMachineCode, InstructionsOfEachCompiledVersionSumToItsExclusiveTime) {
  ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
  double sum = 0;
  std::set<std::string> mnemonics;
  bool loop_line = false, bci_noted = false;
  const nlohmann::json functions = machine({"-functions"});
  for (const auto& function : functions.at("rows")) {
    const std::string name = function.at("name").get<std::string>();
    if (name.rfind(kCompiled, 0) != 0) continue;
    const double exclusive = metric(function, "e.totalcpu");
    const std::vector<Listing> versions = listings(machine({"-disasm", name}));
    ASSERT_EQ(versions.size(), 1u) << name;
    const Listing& version = versions.front();
    double version_sum = 0;
    ASSERT_GT(version.instructions.size(), 10u) << "no machine code listed at 0x" << std::hex << version.start;
    uint64_t previous = 0;
    for (const auto& row : version.instructions) {
      const uint64_t address = std::stoull(row.at("address").get<std::string>(), nullptr, 16);
      // At the code's own addresses: from the method's entry on, ascending,
      // each within the code's extent (the JIT's code is under 64 KiB here).
      EXPECT_GE(address, version.start);
      EXPECT_LT(address, version.start + 65536);
      EXPECT_GT(address, previous) << row.dump();
      previous = address;
      EXPECT_EQ(row.at("name").get<std::string>().find("not recorded"), std::string::npos) << row.dump();
      version_sum += metric(row, "e.totalcpu");
      mnemonics.insert(mnemonic(row));
      bci_noted = bci_noted || row.at("name").get<std::string>().find("  ; bci ") != std::string::npos;
    }
    for (const std::string& source : version.sources)
      loop_line = loop_line || source.find("y = y * 1.0000001") != std::string::npos;
    EXPECT_NEAR(version_sum, exclusive, 1e-6) << name;
    sum += version_sum;
  }
  ASSERT_GT(sum, 0.1) << "the hot loop runs in compiled code: " << functions.dump().substr(0, 2000);
  // Real x86-64 code of the loop: its floating-point division and
  // multiplication (SSE or AVX forms), and the method's return.
  const auto has = [&](std::initializer_list<const char*> names) {
    for (const char* name : names)
      if (mnemonics.count(name)) return true;
    return false;
  };
  EXPECT_TRUE(has({"divsd", "vdivsd"}));
  EXPECT_TRUE(has({"mulsd", "vmulsd"}));
  EXPECT_TRUE(has({"ret"}));
  // The lines and bytecode indexes of the JIT's PC map.
  EXPECT_TRUE(loop_line);
  EXPECT_TRUE(bci_noted);
}

// Every PC where a sample in compiled code was taken (-pcs: the leaf's
// exclusive time) is the address of an instruction the listing shows: the
// bytes are the code that ran, at the addresses it ran at.
TEST_F(JavaMachineCode, SampledPcsAreInstructionStartsOfTheListing) {
  std::set<uint64_t> starts;
  const nlohmann::json functions = machine({"-functions"});
  for (const auto& function : functions.at("rows")) {
    const std::string name = function.at("name").get<std::string>();
    if (name.rfind(kCompiled, 0) != 0) continue;
    for (const Listing& version : listings(machine({"-disasm", name})))
      for (const auto& row : version.instructions)
        starts.insert(std::stoull(row.at("address").get<std::string>(), nullptr, 16));
  }
  ASSERT_FALSE(starts.empty());
  int sampled = 0;
  const nlohmann::json pcs = machine({"-pcs"});
  for (const auto& row : pcs.at("rows")) {
    if (row.at("name").get<std::string>().rfind(kCompiled, 0) != 0 || metric(row, "e.totalcpu") <= 0) continue;
    ++sampled;
    EXPECT_TRUE(starts.count(std::stoull(row.at("address").get<std::string>(), nullptr, 16))) << row.dump();
  }
  EXPECT_GT(sampled, 0) << pcs.dump().substr(0, 3000);
}

// The first MachineCode record of a JAVA_CLASSES file: the offset of its
// record word, and of its payload.
std::pair<uint64_t, uint64_t> first_machine_code_record(const std::vector<char>& file) {
  for (uint64_t block = 0; block + sizeof(lumen_block_header) <= file.size();) {
    lumen_block_header header;
    std::memcpy(&header, file.data() + block, sizeof header);
    if (header.magic != LUMEN_BLOCK_MAGIC || header.block_bytes == 0) {  // a block no thread used
      block += LUMEN_BLOCK_BYTES;
      continue;
    }
    const uint64_t end = std::min<uint64_t>(block + header.block_bytes, file.size());
    for (uint64_t at = block + sizeof header; at + 4 <= end;) {
      uint32_t word;
      std::memcpy(&word, file.data() + at, 4);
      if (word == 0) break;
      if (lumen_record_kind(word) == lumen::java::kMachineCodeRecord) return {at, at + 4};
      at += lumen_record_span(lumen_record_payload_bytes(word));
    }
    block += header.block_bytes;
  }
  return {0, 0};
}

TEST_F(JavaMachineCode, DamagedCodeRecordIsAnErrorNamingFileAndOffset) {
  // A copy of the experiment, its first code record claiming more of its
  // code than it holds.
  const fs::path copy = dir_->path() / "damaged.er";
  fs::copy(run_->experiment, copy, fs::copy_options::recursive);
  const fs::path classes = copy / lumen::java::kDataFile;
  std::vector<char> bytes(fs::file_size(classes));
  std::ifstream(classes, std::ios::binary).read(bytes.data(), bytes.size());
  const auto [word, payload] = first_machine_code_record(bytes);
  ASSERT_GT(payload, 0u) << "no machine-code record in " << classes;
  lumen::java::MachineCode header;
  std::memcpy(&header, bytes.data() + payload, sizeof header);
  header.recorded_bytes += 1;
  std::memcpy(bytes.data() + payload, &header, sizeof header);
  std::ofstream(classes, std::ios::binary | std::ios::trunc).write(bytes.data(), bytes.size());
  const ProcessResult r = run_process({(bin_dir() / "er_print").string(), "-viewmode", "machine", "-functions", copy.string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(classes.string() + " at offset " + std::to_string(word) + ": machine-code record of"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace lumen::test
