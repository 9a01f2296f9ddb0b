// The input of the plugin decoder fuzzer: one plugin's data file as its
// decoder sees it, with what er_print knows of the experiment. decoder_seed
// writes it from a recorded experiment; the fuzzer reads it.
//
//   PLUGIN\n                     the plugin whose decoder reads the records
//   KEY=VALUE\n ...              its options, as the header records them
//   .FACT=VALUE\n ...            the experiment's facts: clock_mhz, cpus,
//                                start_wall_ns, start_monotonic_ns, recorded
//                                (plugins, comma-separated); and for the
//                                views: limit (-limit), unselected (a thread
//                                id the selection leaves out)
//   @PC FUNCTION|OBJECT\n ...    a stack, leaf first, for fold_stack
//   \n
//   records, back to back: kind (u16), payload bytes (u16), the writing
//   thread's id (u32), payload; a last one cut short keeps what is there.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lumen::fuzz {

struct InputRecord {
  uint16_t kind;
  uint32_t thread_id;
  const uint8_t* payload;  // into the input
  uint16_t payload_bytes;
};

struct InputFrame {
  uint64_t pc;
  std::string function;
  std::string object;
};

struct DecoderInput {
  std::string plugin;
  std::vector<std::pair<std::string, std::string>> options;
  std::vector<std::pair<std::string, std::string>> facts;
  std::vector<InputFrame> frames;
  std::vector<InputRecord> records;

  const char* fact(const char* name, const char* otherwise) const {
    for (const auto& [key, value] : facts)
      if (key == name) return value.c_str();
    return otherwise;
  }
};

inline constexpr size_t kRecordHeaderBytes = 8;

// False when the input has no header (no empty line ends one).
inline bool parse_decoder_input(const uint8_t* data, size_t size, DecoderInput& input) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const size_t end = text.find("\n\n");
  if (end == std::string_view::npos) return false;
  size_t at = 0;
  bool first = true;
  while (at <= end) {
    const size_t eol = text.find('\n', at);
    const std::string_view line = text.substr(at, eol - at);
    at = eol + 1;
    if (first) {
      input.plugin = line;
      first = false;
    } else if (!line.empty() && line[0] == '@') {
      const size_t space = line.find(' '), bar = line.find('|');
      if (space == std::string_view::npos || bar == std::string_view::npos || bar < space) continue;
      input.frames.push_back({std::strtoull(std::string(line.substr(1, space - 1)).c_str(), nullptr, 16),
                              std::string(line.substr(space + 1, bar - space - 1)), std::string(line.substr(bar + 1))});
    } else if (const size_t equals = line.find('='); equals != std::string_view::npos) {
      auto& list = line[0] == '.' ? input.facts : input.options;
      const size_t key_start = line[0] == '.' ? 1 : 0;
      list.emplace_back(line.substr(key_start, equals - key_start), line.substr(equals + 1));
    }
  }
  for (size_t p = end + 2; p + kRecordHeaderBytes <= size;) {
    InputRecord record;
    uint16_t declared = 0;
    std::memcpy(&record.kind, data + p, 2);
    std::memcpy(&declared, data + p + 2, 2);
    std::memcpy(&record.thread_id, data + p + 4, 4);
    p += kRecordHeaderBytes;
    record.payload = data + p;
    record.payload_bytes = static_cast<uint16_t>(std::min<size_t>(declared, size - p));
    p += record.payload_bytes;
    input.records.push_back(record);
  }
  return true;
}

inline void append_record(std::string& out, uint16_t kind, uint32_t thread_id, const void* payload, uint16_t bytes) {
  char header[kRecordHeaderBytes];
  std::memcpy(header, &kind, 2);
  std::memcpy(header + 2, &bytes, 2);
  std::memcpy(header + 4, &thread_id, 4);
  out.append(header, sizeof header);
  out.append(static_cast<const char*>(payload), bytes);
}

}  // namespace lumen::fuzz
