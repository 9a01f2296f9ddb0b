#include "java_method_code.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "../java_record.h"
#include "java_bytecode.h"

namespace lumen::java {

std::string java_source_path(const std::string& class_name, const std::string& source_file) {
  // The attribute comes from a class file: a name like "../x" or "a/b.java"
  // would lead er_print out of the source directories.
  if (source_file.empty() || source_file == "." || source_file == ".." ||
      source_file.find_first_of("/\\") != std::string::npos || source_file.find('\0') != std::string::npos)
    return "";
  // The package is the binary name up to its last dot; a hidden class's
  // "/0x..." suffix comes after that dot.
  const size_t dot = class_name.rfind('.');
  if (dot == std::string::npos || dot == 0) return source_file;
  std::string package = class_name.substr(0, dot);
  if (package.find_first_of("/\\") != std::string::npos || package.find("..") != std::string::npos ||
      package.back() == '.')
    return source_file;
  std::replace(package.begin(), package.end(), '.', '/');
  return package + "/" + source_file;
}

void describe_method_code(const void* payload, size_t bytes, const lumen_event_sink* sink) {
  if (sink->describe_code == nullptr || bytes < sizeof(JavaMethod)) return;
  JavaMethod method;
  std::memcpy(&method, payload, sizeof method);
  const char* texts = static_cast<const char*>(payload) + sizeof method;
  const std::string klass(texts, method.class_bytes);
  const std::string source(texts + method.class_bytes + method.name_bytes, method.source_bytes);
  const char* table = texts + method.class_bytes + method.name_bytes + method.source_bytes;
  // JVMTI gives the line table in bytecode order as a rule, not a promise.
  std::vector<LineEntry> entries(method.line_count);
  if (!entries.empty()) std::memcpy(entries.data(), table, entries.size() * sizeof(LineEntry));
  std::stable_sort(entries.begin(), entries.end(), [](const LineEntry& a, const LineEntry& b) { return a.bci < b.bci; });
  std::vector<lumen_code_line> lines;
  lines.reserve(entries.size());
  for (const LineEntry& entry : entries) {
    if (entry.bci < 0 || uint64_t(entry.bci) + kBciBias >= kMethodSpan) continue;
    lines.push_back({java_frame_address(method.frame_base, entry.bci), entry.line, 0});
  }
  // The bytecode after the line table, when the agent recorded it.
  const size_t table_end = sizeof method + method.class_bytes + method.name_bytes + method.source_bytes +
                           entries.size() * sizeof(LineEntry);
  std::vector<BytecodeInstruction> listing;
  if (bytes >= table_end + sizeof(BytecodeTail)) {
    BytecodeTail tail;
    std::memcpy(&tail, static_cast<const char*>(payload) + table_end, sizeof tail);
    const size_t recorded = std::min<size_t>(tail.recorded_bytes, bytes - table_end - sizeof tail);
    listing = disassemble_bytecode(static_cast<const uint8_t*>(payload) + table_end + sizeof tail, recorded);
    if (recorded < tail.code_length)
      listing.push_back({int32_t(recorded), std::to_string(recorded) + ": <" + std::to_string(tail.code_length - recorded) +
                                                " more bytes of bytecode not recorded>"});
  }
  std::vector<lumen_code_instruction> instructions;
  for (const BytecodeInstruction& instruction : listing)
    if (uint64_t(instruction.bci) + kBciBias < kMethodSpan)
      instructions.push_back({java_frame_address(method.frame_base, instruction.bci), instruction.text.c_str()});
  const std::string path = java_source_path(klass, source);
  lumen_code_description code{};
  code.size = sizeof code;
  code.start = method.frame_base;
  code.end = method.frame_base + kMethodSpan;
  code.source_file = path.empty() ? nullptr : path.c_str();
  code.lines = lines.data();
  code.line_count = lines.size();
  code.exact_call_sites = 1;  // a caller's frame holds its invoke's bytecode index
  code.instructions = instructions.data();
  code.instruction_count = instructions.size();
  lumen_describe_code(sink, &code);
}

}  // namespace lumen::java
