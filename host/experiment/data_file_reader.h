// Reading a data file block by block and record by record (the layout is in
// lumen/record_format.h). A torn tail or unused block space ends a block
// cleanly; anything else that does not fit the format is a FormatError
// naming the file and offset.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <vector>

namespace lumen::analysis {

struct RawRecord {
  uint16_t kind;
  uint16_t payload_bytes;
  const void* payload;
  uint32_t block_thread_id;
  uint64_t offset;  // of the record word in the file
};

struct DataFileSummary {
  uint64_t blocks = 0;
  uint64_t records = 0;
};

// Calls `visit` for every record; returns what it read.
DataFileSummary read_data_file(const std::filesystem::path& file, const std::function<void(const RawRecord&)>& visit);

// The thread ids of the file's blocks, reading block headers only (a block
// that is not valid ends the walk; read_data_file reports it).
std::vector<uint32_t> block_thread_ids(const std::filesystem::path& file);

}  // namespace lumen::analysis
