#include "java_machine_code.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "../java_record.h"
#include "java_method_code.h"

namespace lumen::java {

int describe_machine_code(const void* payload, size_t bytes, const lumen_event_sink* sink, char* error,
                          size_t error_size) {
  MachineCode code;
  if (bytes < sizeof code) {
    std::snprintf(error, error_size, "machine-code record of %zu bytes is shorter than its header", bytes);
    return 1;
  }
  std::memcpy(&code, payload, sizeof code);
  const size_t needed = sizeof code + code.class_bytes + code.source_bytes + size_t(code.map_count) * sizeof(PcMapEntry) +
                        code.recorded_bytes;
  if (needed != bytes) {
    std::snprintf(error, error_size, "machine-code record of %zu bytes says it holds %zu", bytes, needed);
    return 1;
  }
  if (code.code_size == 0 || code.recorded_bytes > code.code_size || code.code_start > UINT64_MAX - code.code_size) {
    std::snprintf(error, error_size, "machine-code record of %u bytes of code at 0x%llx holding %u is not one",
                  code.code_size, static_cast<unsigned long long>(code.code_start), code.recorded_bytes);
    return 1;
  }
  const char* at = static_cast<const char*>(payload) + sizeof code;
  const std::string klass(at, code.class_bytes);
  const std::string source(at + code.class_bytes, code.source_bytes);
  at += code.class_bytes + code.source_bytes;
  std::vector<lumen_code_line> lines;
  std::vector<std::string> texts;
  std::vector<uint64_t> note_addresses;
  for (size_t i = 0; i < code.map_count; ++i, at += sizeof(PcMapEntry)) {
    PcMapEntry entry;
    std::memcpy(&entry, at, sizeof entry);
    if (entry.offset >= code.code_size || (!note_addresses.empty() && code.code_start + entry.offset <= note_addresses.back())) {
      std::snprintf(error, error_size, "machine-code record's PC map entry %zu (offset %u) is out of order or outside its %u bytes",
                    i, entry.offset, code.code_size);
      return 1;
    }
    const uint64_t address = code.code_start + entry.offset;
    lines.push_back({address, entry.line > 0 ? entry.line : 0, 0});
    note_addresses.push_back(address);
    texts.push_back(entry.bci >= 0 ? "bci " + std::to_string(entry.bci) : "");
  }
  std::vector<lumen_code_instruction> notes;
  for (size_t i = 0; i < texts.size(); ++i) notes.push_back({note_addresses[i], texts[i].c_str()});
  const std::string path = java_source_path(klass, source);
  lumen_code_description description{};
  description.size = sizeof description;
  description.start = code.code_start;
  description.end = code.code_start + code.code_size;
  description.source_file = path.empty() ? nullptr : path.c_str();
  description.lines = lines.data();
  description.line_count = lines.size();
  description.instructions = notes.data();
  description.instruction_count = notes.size();
  description.machine_code = reinterpret_cast<const uint8_t*>(at);
  description.machine_code_bytes = code.recorded_bytes;
  description.machine = code.machine;
  lumen_describe_code(sink, &description);
  return 0;
}

}  // namespace lumen::java
