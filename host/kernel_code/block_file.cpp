#include "block_file.h"

#include <lumen/record_format.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace lumen::kernel {

namespace {

constexpr size_t kPage = 4096;

std::vector<uint8_t> new_block(uint32_t thread_id) {
  std::vector<uint8_t> block;
  block.reserve(LUMEN_BLOCK_BYTES);
  const lumen_block_header header{LUMEN_BLOCK_MAGIC, LUMEN_FORMAT_MAJOR, LUMEN_FORMAT_MINOR, LUMEN_BLOCK_BYTES,
                                  thread_id};
  block.resize(sizeof header);
  std::memcpy(block.data(), &header, sizeof header);
  return block;
}

}  // namespace

void BlockFile::append(uint32_t thread_id, uint16_t kind, const void* payload, size_t bytes) {
  append(thread_id, kind, payload, bytes, nullptr, 0);
}

void BlockFile::append(uint32_t thread_id, uint16_t kind, const void* head, size_t head_bytes, const void* tail,
                       size_t tail_bytes) {
  const size_t payload = head_bytes + tail_bytes;
  if (payload > UINT16_MAX - 8 || lumen_record_span(static_cast<uint16_t>(payload)) + sizeof(lumen_block_header) >
                                       LUMEN_BLOCK_BYTES)
    throw std::runtime_error("a record of " + std::to_string(payload) + " bytes does not fit a block of " +
                             path_.string());
  auto found = open_blocks_.find(thread_id);
  if (found == open_blocks_.end()) found = open_blocks_.emplace(thread_id, new_block(thread_id)).first;
  std::vector<uint8_t>& block = found->second;
  const uint32_t span = lumen_record_span(static_cast<uint16_t>(payload));
  if (block.size() + span > LUMEN_BLOCK_BYTES) {
    write_block(block, LUMEN_BLOCK_BYTES);
    block = new_block(thread_id);
  }
  const size_t at = block.size();
  block.resize(at + span, 0);
  const uint32_t word = lumen_record_word(kind, static_cast<uint16_t>(payload));
  std::memcpy(block.data() + at, &word, sizeof word);
  if (head_bytes != 0) std::memcpy(block.data() + at + 4, head, head_bytes);
  if (tail_bytes != 0) std::memcpy(block.data() + at + 4 + head_bytes, tail, tail_bytes);
}

void BlockFile::finish() {
  for (auto& [thread, block] : open_blocks_) {
    const size_t bytes = (block.size() + kPage - 1) / kPage * kPage;
    write_block(block, bytes);
  }
  open_blocks_.clear();
  // A file with no records is still there: its plugin recorded nothing.
  const int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) close(fd);
}

void BlockFile::write_block(std::vector<uint8_t>& block, size_t bytes) {
  block.resize(bytes, 0);
  const auto block_bytes = static_cast<uint32_t>(bytes);
  std::memcpy(block.data() + offsetof(lumen_block_header, block_bytes), &block_bytes, sizeof block_bytes);
  const int fd = open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes) {
    const ssize_t n = write(fd, block.data() + done, bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      close(fd);
      throw std::runtime_error("cannot write " + path_.string() + ": " + std::strerror(error));
    }
    done += static_cast<size_t>(n);
  }
  close(fd);
}

}  // namespace lumen::kernel
