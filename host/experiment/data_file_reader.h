// Reading a data file block by block and record by record (the layout is in
// lumen/record_format.h). A torn tail or unused block space ends a block
// cleanly; anything else that does not fit the format is a FormatError
// naming the file and offset.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
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

// Calls `visit` for every record of the blocks that start before `end`;
// returns what it read.
DataFileSummary read_data_file(const std::filesystem::path& file, const std::function<void(const RawRecord&)>& visit,
                               uint64_t end = UINT64_MAX);

// Calls `visit` for every record of the blocks that start at `offsets` (a
// survey's block_offsets, or a part of them); returns what it read. Several
// threads may read parts of one file at once.
DataFileSummary read_data_blocks(const std::filesystem::path& file, std::span<const uint64_t> offsets,
                                 const std::function<void(const RawRecord&)>& visit);

// The thread ids of the file's blocks, reading block headers only (a block
// that is not valid ends the walk; read_data_file reports it).
std::vector<uint32_t> block_thread_ids(const std::filesystem::path& file);

// A walk over block headers only: the threads that wrote, and whether the
// file holds what its blocks declare. A file cut short (copied while being
// written, a disk that filled) ends inside its last block.
struct DataFileSurvey {
  std::vector<uint32_t> thread_ids;
  std::vector<uint64_t> block_offsets;  // where each valid block starts, with thread_ids
  uint64_t file_bytes = 0;
  uint64_t declared_bytes = 0;  // where the last valid block ends
  std::optional<uint64_t> bad_block_at;  // the first block header that is not one
  bool ended_early() const { return declared_bytes > file_bytes; }
};
DataFileSurvey survey_data_file(const std::filesystem::path& file);

}  // namespace lumen::analysis
