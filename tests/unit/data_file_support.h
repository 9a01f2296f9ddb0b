// Writing data files with the collector's stream writer, and building blocks
// by hand, for the data-file, stack and load-object tests.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <lumen/record_format.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "data_file_reader.h"
#include "recording/stream_writer.h"

namespace lumen::test {

// Stream names are global to the process (the writer is the target's one
// runtime), so each test takes a name no other test uses.
inline std::string unique_stream_name(const std::string& base) {
  static std::atomic<int> counter{0};
  return base + "_" + std::to_string(counter.fetch_add(1));
}

// Runs `body` on a new thread (fresh per-thread blocks) and unmaps its blocks
// after; returns the thread's kernel id.
inline uint32_t on_writer_thread(const std::function<void()>& body) {
  uint32_t tid = 0;
  std::thread thread([&] {
    tid = static_cast<uint32_t>(syscall(SYS_gettid));
    body();
    collector::finish_thread_streams();
  });
  thread.join();
  return tid;
}

struct Record {
  uint16_t kind = 0;
  std::string payload;
  bool operator==(const Record&) const = default;
};

// Readable failure messages: kind, size and the start of the payload.
inline void PrintTo(const Record& r, std::ostream* os) {
  *os << "{kind " << r.kind << ", " << r.payload.size() << " bytes";
  if (!r.payload.empty()) *os << " \"" << r.payload.substr(0, 16) << (r.payload.size() > 16 ? "..." : "") << "\"";
  *os << "}";
}

struct ReadRecord {
  Record record;
  uint32_t thread_id = 0;
  uint64_t offset = 0;
};

inline std::vector<ReadRecord> read_all(const std::filesystem::path& file,
                                        analysis::DataFileSummary* summary = nullptr) {
  std::vector<ReadRecord> out;
  const auto s = analysis::read_data_file(file, [&](const analysis::RawRecord& r) {
    out.push_back({{r.kind, std::string(static_cast<const char*>(r.payload), r.payload_bytes)}, r.block_thread_id,
                   r.offset});
  });
  if (summary != nullptr) *summary = s;
  return out;
}

// One block as the writer lays it out.
inline std::string make_block(uint32_t thread_id, const std::vector<Record>& records,
                              uint32_t block_bytes = LUMEN_BLOCK_BYTES, uint16_t major = LUMEN_FORMAT_MAJOR,
                              uint16_t minor = LUMEN_FORMAT_MINOR, uint32_t magic = LUMEN_BLOCK_MAGIC) {
  std::string block(LUMEN_BLOCK_BYTES, '\0');
  const lumen_block_header header{magic, major, minor, block_bytes, thread_id};
  std::memcpy(block.data(), &header, sizeof header);
  size_t at = sizeof header;
  for (const Record& r : records) {
    const uint32_t word = lumen_record_word(r.kind, static_cast<uint16_t>(r.payload.size()));
    std::memcpy(block.data() + at, &word, 4);
    std::memcpy(block.data() + at + 4, r.payload.data(), r.payload.size());
    at += lumen_record_span(static_cast<uint16_t>(r.payload.size()));
  }
  return block;
}

inline void overwrite(const std::filesystem::path& file, uint64_t offset, const void* bytes, size_t size) {
  const int fd = open(file.c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(pwrite(fd, bytes, size, static_cast<off_t>(offset)), static_cast<ssize_t>(size));
  close(fd);
}

template <typename T>
std::string bytes_of(const T& value) {
  return std::string(reinterpret_cast<const char*>(&value), sizeof value);
}

}  // namespace lumen::test
