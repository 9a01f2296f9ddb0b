#include "regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "format_error.h"

namespace lumen::analysis {

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) close(fd_);
}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.release();
  }
  return *this;
}

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

}  // namespace

FileDescriptor try_open_regular_file(const std::filesystem::path& path, Symlinks symlinks, std::string* why) {
  const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | (symlinks == Symlinks::Refuse ? O_NOFOLLOW : 0);
  FileDescriptor fd(open(path.c_str(), flags));
  if (fd.get() < 0) {
    if (why != nullptr)
      *why = errno == ELOOP && symlinks == Symlinks::Refuse ? " is a symbolic link, which is not followed"
                                                            : std::string(": cannot open: ") + std::strerror(errno);
    return FileDescriptor();
  }
  struct stat st;
  if (fstat(fd.get(), &st) != 0) {
    if (why != nullptr) *why = std::string(": cannot examine: ") + std::strerror(errno);
    return FileDescriptor();
  }
  if (!S_ISREG(st.st_mode)) {
    if (why != nullptr) *why = std::string(" is ") + kind_of(st.st_mode) + ", not a regular file; it is not read";
    return FileDescriptor();
  }
  const int status = fcntl(fd.get(), F_GETFL);
  if (status >= 0) fcntl(fd.get(), F_SETFL, status & ~O_NONBLOCK);
  return fd;
}

FileDescriptor open_regular_file(const std::filesystem::path& path, Symlinks symlinks) {
  std::string why;
  FileDescriptor fd = try_open_regular_file(path, symlinks, &why);
  if (fd.get() < 0) throw FormatError(path.string() + why);
  return fd;
}

std::string read_regular_file(const std::filesystem::path& path, Symlinks symlinks, size_t max_bytes) {
  const FileDescriptor fd = open_regular_file(path, symlinks);
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t n = read(fd.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw FormatError(path.string() + ": cannot read: " + std::strerror(errno));
    if (n == 0) return text;
    if (text.size() + static_cast<size_t>(n) > max_bytes)
      throw FormatError(path.string() + " is larger than " + std::to_string(max_bytes >> 20) + " MiB; it is not read");
    text.append(buffer, static_cast<size_t>(n));
  }
}

bool is_regular_file(const std::filesystem::path& path, Symlinks symlinks) {
  struct stat st;
  const int status = symlinks == Symlinks::Refuse ? lstat(path.c_str(), &st) : stat(path.c_str(), &st);
  return status == 0 && S_ISREG(st.st_mode);
}

}  // namespace lumen::analysis
