// Opening files an experiment holds or names, which may be anything: a FIFO
// blocks whoever opens it for reading, a device reads forever, a symlink
// inside an experiment may point anywhere. Only regular files are read.
#pragma once

#include <filesystem>
#include <string>

namespace lumen::analysis {

enum class Symlinks {
  Refuse,  // a file inside an experiment: the path itself must be the file
  Follow,  // a load object or source file named by one (/lib/libc.so.6 is a link)
};

// An open descriptor, closed on scope exit.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd = -1) : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
  FileDescriptor& operator=(FileDescriptor&& other) noexcept;
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// Opens `path` for reading with O_NONBLOCK (so a FIFO does not wait for a
// writer) and, under Symlinks::Refuse, O_NOFOLLOW; then checks with fstat
// that what was opened is a regular file, and clears O_NONBLOCK. Throws
// FormatError naming the path and what it is otherwise.
FileDescriptor open_regular_file(const std::filesystem::path& path, Symlinks symlinks);

// The same, answering with an empty descriptor (and `why`, to follow the
// path in a message) instead of throwing, for files that may be missing.
FileDescriptor try_open_regular_file(const std::filesystem::path& path, Symlinks symlinks, std::string* why = nullptr);

// A whole small file (header, log, index) read through open_regular_file;
// more than `max_bytes` is refused.
std::string read_regular_file(const std::filesystem::path& path, Symlinks symlinks, size_t max_bytes = 64u << 20);

// Whether `path` is a regular file, not following a final symlink under
// Symlinks::Refuse (lstat), following it otherwise (stat). Opens nothing.
bool is_regular_file(const std::filesystem::path& path, Symlinks symlinks);

}  // namespace lumen::analysis
