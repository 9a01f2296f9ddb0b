#include "experiment_copy.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "experiment_files.h"
#include "regular_file.h"

namespace lumen::er_tools {

namespace fs = std::filesystem;

namespace {

using Fd = analysis::FileDescriptor;

[[noreturn]] void fail(const std::string& what, const fs::path& path) {
  throw ToolError("cannot " + what + " '" + path.string() + "': " + std::strerror(errno));
}

void copy_file_contents(int from_dir, int to_dir, const char* name, mode_t mode, const fs::path& shown) {
  // O_NONBLOCK: if the entry was swapped for a FIFO since it was examined,
  // opening it does not wait; fstat then tells.
  const Fd in(openat(from_dir, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
  if (in.get() < 0) fail("open", shown);
  struct stat st;
  if (fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode)) throw ToolError("'" + shown.string() + "' changed while copied");
  const Fd out(openat(to_dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode & 07777));
  if (out.get() < 0) fail("create the copy of", shown);
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(in.get(), buffer, sizeof buffer);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) fail("read", shown);
    if (n == 0) return;
    for (ssize_t done = 0; done < n;) {
      const ssize_t w = write(out.get(), buffer + done, static_cast<size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) fail("write the copy of", shown);
      done += w;
    }
  }
}

void copy_tree(int from_dir, int to_dir, const fs::path& shown, std::vector<std::string>& skipped) {
  const int listing = dup(from_dir);
  if (listing < 0) fail("read", shown);
  DIR* dir = fdopendir(listing);
  if (dir == nullptr) {
    close(listing);
    fail("read", shown);
  }
  struct Closer {
    DIR* dir;
    ~Closer() { closedir(dir); }
  } closer{dir};
  rewinddir(dir);
  while (const dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (name == "." || name == "..") continue;
    const fs::path path = shown / name;
    struct stat st;
    if (fstatat(from_dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) fail("examine", path);
    if (S_ISDIR(st.st_mode)) {
      if (mkdirat(to_dir, name.c_str(), 0700) != 0) fail("create the copy of", path);
      const Fd from_sub(openat(from_dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      const Fd to_sub(openat(to_dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (from_sub.get() < 0) fail("open", path);
      if (to_sub.get() < 0) fail("open the copy of", path);
      copy_tree(from_sub.get(), to_sub.get(), path, skipped);
      fchmod(to_sub.get(), st.st_mode & 07777);
    } else if (S_ISREG(st.st_mode)) {
      copy_file_contents(from_dir, to_dir, name.c_str(), st.st_mode, path);
    } else if (S_ISLNK(st.st_mode)) {
      std::string target(static_cast<size_t>(st.st_size) + 1, '\0');
      const ssize_t n = readlinkat(from_dir, name.c_str(), target.data(), target.size());
      if (n < 0) fail("read the link", path);
      target.resize(static_cast<size_t>(n));
      if (symlinkat(target.c_str(), to_dir, name.c_str()) != 0) fail("create the copy of", path);
    } else {
      skipped.push_back(path.string());
    }
  }
}

}  // namespace

std::vector<std::string> copy_experiment(const fs::path& from, const fs::path& to) {
  const Fd from_dir(open(from.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (from_dir.get() < 0) fail("open", from);
  if (mkdir(to.c_str(), 0700) != 0) fail("create", to);
  const Fd to_dir(open(to.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (to_dir.get() < 0) fail("open", to);
  std::vector<std::string> skipped;
  copy_tree(from_dir.get(), to_dir.get(), from, skipped);
  struct stat st;
  if (fstat(from_dir.get(), &st) == 0) fchmod(to_dir.get(), st.st_mode & 07777);
  return skipped;
}

}  // namespace lumen::er_tools
