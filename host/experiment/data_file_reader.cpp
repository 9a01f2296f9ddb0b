#include "data_file_reader.h"

#include <fcntl.h>
#include <lumen/record_format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstring>

#include "experiment_format.h"
#include "format_error.h"
#include "regular_file.h"

namespace lumen::analysis {

namespace {

// A read-only mapping of a whole file, unmapped on scope exit.
class MappedFile {
 public:
  // Only a regular file inside the experiment is mapped (regular_file.h).
  explicit MappedFile(const std::filesystem::path& path) : fd_(open_regular_file(path, Symlinks::Refuse)) {
    struct stat st;
    if (fstat(fd_.get(), &st) != 0) throw FormatError(path.string() + ": cannot stat: " + std::strerror(errno));
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* data = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_.get(), 0);
      if (data == MAP_FAILED) throw FormatError(path.string() + ": cannot map: " + std::strerror(errno));
      data_ = static_cast<const char*>(data);
      madvise(data, size_, MADV_SEQUENTIAL);
    }
  }
  ~MappedFile() {
    if (data_ != nullptr) munmap(const_cast<char*>(data_), size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  const char* data() const { return data_; }
  size_t size() const { return size_; }
  // The first block at or after `offset` that holds data: holes (a file
  // extended without writing, a block reserved and never filled) are
  // skipped by asking the file system, not by reading their zeros.
  uint64_t next_data_block(uint64_t offset) const {
    const off_t data = lseek(fd_.get(), static_cast<off_t>(offset), SEEK_DATA);
    if (data < 0) return errno == ENXIO ? size_ : offset;
    const uint64_t block = static_cast<uint64_t>(data) / LUMEN_BLOCK_BYTES * LUMEN_BLOCK_BYTES;
    return std::max<uint64_t>(block, offset);
  }
  // Reads `bytes` at `offset` from the file, not through the mapping.
  bool read_at(uint64_t offset, void* into, size_t bytes) const {
    return pread(fd_.get(), into, bytes, static_cast<off_t>(offset)) == static_cast<ssize_t>(bytes);
  }
  // Maps the pages of the window from `offset` (up to `limit`, where the
  // reading ends) in one request before they are read: one system call a
  // window instead of a page fault for every few pages (on a virtual
  // machine each fault is an exit's worth of work).
  void populate_from(uint64_t offset, uint64_t limit) {
    constexpr uint64_t kWindowBytes = uint64_t{4} << 20;
    static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
    if (data_ == nullptr || (offset >= populated_from_ && offset + LUMEN_BLOCK_BYTES <= populated_to_)) return;
    const uint64_t from = std::min<uint64_t>(offset / page * page, size_);
    const uint64_t to = std::min<uint64_t>({from + kWindowBytes, limit, size_});
    if (to <= from) return;
    // Only advice: a kernel without MADV_POPULATE_READ faults pages in as before.
    madvise(const_cast<char*>(data_) + from, to - from, MADV_POPULATE_READ);
    populated_from_ = from;
    populated_to_ = to;
  }
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
  FileDescriptor fd_;
  const char* data_ = nullptr;
  size_t size_ = 0;
  size_t released_ = 0;
  uint64_t populated_from_ = 0;
  uint64_t populated_to_ = 0;
};

}  // namespace

namespace {

constexpr uint64_t kPrefetchAhead = 512;  // bytes

// Reads the records of the block at `block_start` (its header valid or a
// FormatError); returns where the block ends.
uint64_t read_block(const MappedFile& mapped, const std::string& name, uint64_t block_start,
                    const std::function<void(const RawRecord&)>& visit, DataFileSummary& summary) {
  lumen_block_header header;
  std::memcpy(&header, mapped.data() + block_start, sizeof header);
  if (header.magic != LUMEN_BLOCK_MAGIC) throw FormatError(name, block_start, "not a lumen data block");
  if (const auto refusal = format_refusal(header.format_major, header.format_minor))
    throw FormatError(name, block_start, *refusal);
  if (header.block_bytes < sizeof header || header.block_bytes % 4096 != 0)
    throw FormatError(name, block_start, "block size " + std::to_string(header.block_bytes) + " is not valid");
  ++summary.blocks;
  // A file cut short (copied while written, or a disk that filled) ends early.
  const uint64_t block_end = std::min<uint64_t>(block_start + header.block_bytes, mapped.size());
  uint64_t at = block_start + sizeof header;
  while (at + 4 <= block_end) {
    // The records are read once, in order: ask for the lines a few records
    // ahead, which the hardware's prefetcher does not fetch across a page.
    __builtin_prefetch(mapped.data() + std::min<uint64_t>(at + kPrefetchAhead, block_end - 1));
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
  return block_start + header.block_bytes;
}

}  // namespace

DataFileSummary read_data_file(const std::filesystem::path& file, const std::function<void(const RawRecord&)>& visit,
                               uint64_t end) {
  MappedFile mapped(file);
  const std::string name = file.string();
  DataFileSummary summary;
  uint64_t block_start = 0;
  while (block_start + sizeof(lumen_block_header) <= std::min<uint64_t>(mapped.size(), end)) {
    uint32_t magic;
    std::memcpy(&magic, mapped.data() + block_start + offsetof(lumen_block_header, magic), sizeof magic);
    if (magic == 0) {  // reserved by a writer that never got to it, or a hole
      block_start = mapped.next_data_block(block_start + LUMEN_BLOCK_BYTES);
      continue;
    }
    mapped.populate_from(block_start, end);
    block_start = read_block(mapped, name, block_start, visit, summary);
    mapped.release_before(block_start);
  }
  return summary;
}

DataFileSummary read_data_blocks(const std::filesystem::path& file, std::span<const uint64_t> offsets,
                                 const std::function<void(const RawRecord&)>& visit) {
  MappedFile mapped(file);
  const std::string name = file.string();
  DataFileSummary summary;
  for (const uint64_t block_start : offsets) {
    if (block_start + sizeof(lumen_block_header) > mapped.size())
      throw FormatError(name, block_start, "a block past the end of the file");
    mapped.populate_from(block_start, offsets.back() + LUMEN_BLOCK_BYTES);
    mapped.release_before(read_block(mapped, name, block_start, visit, summary));
  }
  return summary;
}

DataFileSurvey survey_data_file(const std::filesystem::path& file) {
  // Block headers are read one by one: a mapping would fault in (and map
  // the neighbours of) a page per block, the whole file for 64 KiB blocks.
  MappedFile mapped(file);
  DataFileSurvey survey;
  survey.file_bytes = mapped.size();
  uint64_t block_start = 0;
  while (block_start + sizeof(lumen_block_header) <= mapped.size()) {
    lumen_block_header header;
    if (!mapped.read_at(block_start, &header, sizeof header)) {
      survey.bad_block_at = block_start;
      break;
    }
    if (header.magic == 0) {
      block_start = mapped.next_data_block(block_start + LUMEN_BLOCK_BYTES);
      continue;
    }
    if (header.magic != LUMEN_BLOCK_MAGIC || header.block_bytes < sizeof header || header.block_bytes % 4096 != 0) {
      survey.bad_block_at = block_start;
      break;
    }
    survey.thread_ids.push_back(header.thread_id);
    survey.block_offsets.push_back(block_start);
    block_start += header.block_bytes;
    survey.declared_bytes = block_start;
  }
  return survey;
}

std::vector<uint32_t> block_thread_ids(const std::filesystem::path& file) { return survey_data_file(file).thread_ids; }

}  // namespace lumen::analysis
