// A MachineCode record as er_print's description of machine code: the
// bytes at the code's addresses, the PC map's lines and bytecode indexes;
// and every damaged record refused with a message, never read past.
#include <gtest/gtest.h>

#include <elf.h>

#include <cstring>
#include <string>
#include <vector>

#include "../analysis/java_machine_code.h"
#include "../java_record.h"

namespace lumen::java {
namespace {

struct Described {
  int calls = 0;
  uint64_t start = 0, end = 0;
  std::string file;
  std::vector<lumen_code_line> lines;
  std::vector<std::pair<uint64_t, std::string>> notes;
  std::vector<uint8_t> code;
  uint32_t machine = 0;
};

void keep(void* context, const lumen_code_description* code) {
  auto* d = static_cast<Described*>(context);
  ++d->calls;
  d->start = code->start;
  d->end = code->end;
  d->file = code->source_file ? code->source_file : "";
  d->lines.assign(code->lines, code->lines + code->line_count);
  for (size_t i = 0; i < code->instruction_count; ++i)
    d->notes.emplace_back(code->instructions[i].address, code->instructions[i].text);
  d->code.assign(code->machine_code, code->machine_code + code->machine_code_bytes);
  d->machine = code->machine;
}

constexpr uint64_t kStart = 0x7f4a10002000;
// push rbp; mov rbp, rsp; ... ret: 9 of the code's 40 bytes recorded.
const std::vector<uint8_t> kCode{0x55, 0x48, 0x89, 0xe5, 0x90, 0x90, 0x90, 0x5d, 0xc3};

std::vector<char> record(std::vector<PcMapEntry> map, uint32_t code_size = 40) {
  const std::string klass = "com.acme.App", source = "App.java";
  MachineCode header{};
  header.frame_base = method_base(0x7f0012345678);
  header.code_start = kStart;
  header.code_size = code_size;
  header.machine = EM_X86_64;
  header.class_bytes = uint16_t(klass.size());
  header.source_bytes = uint16_t(source.size());
  header.map_count = uint16_t(map.size());
  header.recorded_bytes = uint16_t(kCode.size());
  std::vector<char> out(sizeof header);
  std::memcpy(out.data(), &header, sizeof header);
  out.insert(out.end(), klass.begin(), klass.end());
  out.insert(out.end(), source.begin(), source.end());
  const char* entries = reinterpret_cast<const char*>(map.data());
  out.insert(out.end(), entries, entries + map.size() * sizeof(PcMapEntry));
  out.insert(out.end(), kCode.begin(), kCode.end());
  return out;
}

int describe(const std::vector<char>& bytes, Described& described, std::string& error) {
  lumen_event_sink sink{};
  sink.size = sizeof sink;
  sink.context = &described;
  sink.describe_code = keep;
  char message[256] = "";
  const int result = describe_machine_code(bytes.data(), bytes.size(), &sink, message, sizeof message);
  error = message;
  return result;
}

TEST(JavaMachineCodeRecord, CodeIsDescribedAtItsAddressesWithTheMapsLinesAndIndexes) {
  Described described;
  std::string error;
  ASSERT_EQ(describe(record({{0, 0, 12}, {4, 7, 13}, {8, -1, 0}}), described, error), 0) << error;
  EXPECT_EQ(described.start, kStart);
  EXPECT_EQ(described.end, kStart + 40);
  EXPECT_EQ(described.file, "com/acme/App.java");
  EXPECT_EQ(described.code, kCode);
  EXPECT_EQ(described.machine, uint32_t(EM_X86_64));
  ASSERT_EQ(described.lines.size(), 3u);
  EXPECT_EQ(described.lines[1].address, kStart + 4);
  EXPECT_EQ(described.lines[1].line, 13);
  EXPECT_EQ(described.lines[2].line, 0);
  ASSERT_EQ(described.notes.size(), 3u);
  EXPECT_EQ(described.notes[0], std::make_pair(kStart, std::string("bci 0")));
  EXPECT_EQ(described.notes[1], std::make_pair(kStart + 4, std::string("bci 7")));
  EXPECT_EQ(described.notes[2].second, "");  // no bytecode index there
}

TEST(JavaMachineCodeRecord, EveryShortenedRecordIsRefusedUnread) {
  const std::vector<char> whole = record({{0, 0, 12}, {4, 7, 13}});
  for (size_t bytes = 0; bytes < whole.size(); ++bytes) {
    Described described;
    std::string error;
    const std::vector<char> cut(whole.begin(), whole.begin() + long(bytes));
    EXPECT_NE(describe(cut, described, error), 0) << bytes;
    EXPECT_NE(error.find("machine-code record of"), std::string::npos) << error;
    EXPECT_EQ(described.calls, 0);
  }
}

TEST(JavaMachineCodeRecord, MapOutsideTheCodeOrOutOfOrderAndCodeLongerThanItsSizeAreRefused) {
  Described described;
  std::string error;
  EXPECT_NE(describe(record({{0, 0, 12}, {40, 7, 13}}), described, error), 0);
  EXPECT_NE(error.find("PC map entry 1 (offset 40)"), std::string::npos) << error;
  EXPECT_NE(describe(record({{4, 0, 12}, {0, 7, 13}}), described, error), 0);
  EXPECT_NE(describe(record({}, 8), described, error), 0);  // 9 bytes recorded of 8
  EXPECT_NE(describe(record({}, 0), described, error), 0);
  EXPECT_EQ(described.calls, 0);
}

}  // namespace
}  // namespace lumen::java
