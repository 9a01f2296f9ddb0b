// A data file of the experiment format (record_format.h) written from the
// host: records kept per thread in 64 KiB blocks, each block appended to
// the file when full; finish() writes the partly filled ones, cut to whole
// pages, as a reader expects them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace lumen::kernel {

class BlockFile {
 public:
  explicit BlockFile(std::filesystem::path path) : path_(std::move(path)) {}
  ~BlockFile() = default;
  BlockFile(BlockFile&&) = default;

  // Throws std::runtime_error naming the file when it cannot be written.
  void append(uint32_t thread_id, uint16_t kind, const void* payload, size_t bytes);
  // `head` then `tail` as one record's payload.
  void append(uint32_t thread_id, uint16_t kind, const void* head, size_t head_bytes, const void* tail,
              size_t tail_bytes);
  void finish();

 private:
  void write_block(std::vector<uint8_t>& block, size_t bytes);

  std::filesystem::path path_;
  std::map<uint32_t, std::vector<uint8_t>> open_blocks_;  // thread -> its block, header and records
};

}  // namespace lumen::kernel
