#include "data_file_reader.h"

#include <fcntl.h>
#include <lumen/record_format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "format_error.h"

namespace lumen::analysis {

namespace {

// A read-only mapping of a whole file, unmapped on scope exit.
class MappedFile {
 public:
  explicit MappedFile(const std::filesystem::path& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw FormatError(path.string() + ": cannot open: " + std::strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
      close(fd);
      throw FormatError(path.string() + ": cannot stat: " + std::strerror(errno));
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* data = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (data == MAP_FAILED) {
        close(fd);
        throw FormatError(path.string() + ": cannot map: " + std::strerror(errno));
      }
      data_ = static_cast<const char*>(data);
      madvise(data, size_, MADV_SEQUENTIAL);
    }
    close(fd);
  }
  ~MappedFile() {
    if (data_ != nullptr) munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  // Drops the pages before `upto` from this process once every
  // kReleaseBytes: reading a data file of hundreds of megabytes then holds
  // only a window of it. The mapping is read-only and private, so a later
  // access to a dropped page reads the file again.
  void release_before(size_t upto) {
    constexpr size_t kReleaseBytes = size_t{16} << 20;
    static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    upto = std::min(upto, size_) / page * page;
    if (data_ == nullptr || upto < released_ + kReleaseBytes) return;
    madvise(const_cast<char*>(data_) + released_, upto - released_, MADV_DONTNEED);
    released_ = upto;
  }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
  size_t released_ = 0;
};

}  // namespace

DataFileSummary read_data_file(const std::filesystem::path& file, const std::function<void(const RawRecord&)>& visit) {
  MappedFile mapped(file);
  const std::string name = file.string();
  DataFileSummary summary;
  uint64_t block_start = 0;
  while (block_start + sizeof(lumen_block_header) <= mapped.size()) {
    lumen_block_header header;
    std::memcpy(&header, mapped.data() + block_start, sizeof header);
    if (header.magic == 0) {  // reserved by a writer that never got to it
      block_start += LUMEN_BLOCK_BYTES;
      continue;
    }
    if (header.magic != LUMEN_BLOCK_MAGIC) throw FormatError(name, block_start, "not a lumen data block");
    if (header.format_major > LUMEN_FORMAT_MAJOR)
      throw FormatError(name, block_start,
                        "written in experiment format " + std::to_string(header.format_major) + "." +
                            std::to_string(header.format_minor) + "; this lumen reads format " +
                            std::to_string(LUMEN_FORMAT_MAJOR) + ".x, a newer lumen is needed");
    if (header.block_bytes < sizeof header || header.block_bytes % 4096 != 0)
      throw FormatError(name, block_start, "block size " + std::to_string(header.block_bytes) + " is not valid");
    ++summary.blocks;
    // A file cut short (copied while written, or a disk that filled) ends early.
    const uint64_t block_end = std::min<uint64_t>(block_start + header.block_bytes, mapped.size());
    uint64_t at = block_start + sizeof header;
    while (at + 4 <= block_end) {
      uint32_t word;
      std::memcpy(&word, mapped.data() + at, sizeof word);
      if (word == 0) break;
      const uint16_t bytes = lumen_record_payload_bytes(word);
      if (at + lumen_record_span(bytes) > block_end) {
        if (block_end < block_start + header.block_bytes) break;  // torn by truncation
        throw FormatError(name, at, "record of " + std::to_string(bytes) + " bytes runs past its block");
      }
      visit(RawRecord{lumen_record_kind(word), bytes, mapped.data() + at + 4, header.thread_id, at});
      ++summary.records;
      at += lumen_record_span(bytes);
    }
    block_start += header.block_bytes;
    mapped.release_before(block_start);
  }
  return summary;
}

std::vector<uint32_t> block_thread_ids(const std::filesystem::path& file) {
  MappedFile mapped(file);
  std::vector<uint32_t> ids;
  uint64_t block_start = 0;
  while (block_start + sizeof(lumen_block_header) <= mapped.size()) {
    lumen_block_header header;
    std::memcpy(&header, mapped.data() + block_start, sizeof header);
    if (header.magic == 0) {
      block_start += LUMEN_BLOCK_BYTES;
      continue;
    }
    if (header.magic != LUMEN_BLOCK_MAGIC || header.block_bytes < sizeof header || header.block_bytes % 4096 != 0) break;
    ids.push_back(header.thread_id);
    block_start += header.block_bytes;
    mapped.release_before(block_start);  // a fault maps the pages around it too
  }
  return ids;
}

}  // namespace lumen::analysis
