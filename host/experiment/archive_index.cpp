#include "archive_index.h"

#include <algorithm>

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <set>

#include "format_error.h"
#include "regular_file.h"

namespace lumen::analysis {

namespace fs = std::filesystem;

std::string hex_bytes(const void* bytes, size_t size) {
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  for (size_t i = 0; i < size; ++i) {
    const auto byte = static_cast<const unsigned char*>(bytes)[i];
    hex += digits[byte >> 4];
    hex += digits[byte & 15];
  }
  return hex;
}

std::string read_build_id(const fs::path& file) {
  // Only a regular file is read: the path comes from an experiment.
  const FileDescriptor opened = try_open_regular_file(file, Symlinks::Follow);
  const int fd = opened.get();
  if (fd < 0) return "";
  elf_version(EV_CURRENT);
  std::string hex;
  if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr)) {
    const void* bytes = nullptr;
    const ssize_t length = dwelf_elf_gnu_build_id(elf, &bytes);
    if (length > 0) hex = hex_bytes(bytes, static_cast<size_t>(length));
    elf_end(elf);
  }
  return hex;
}

uint64_t file_content_hash(const fs::path& file) {
  const FileDescriptor opened = try_open_regular_file(file, Symlinks::Follow);
  if (opened.get() < 0) return 0;
  uint64_t hash = 0xcbf29ce484222325ull;
  unsigned char buffer[1 << 16];
  for (;;) {
    const ssize_t n = read(opened.get(), buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return 0;
    if (n == 0) break;
    for (ssize_t i = 0; i < n; ++i) hash = (hash ^ buffer[i]) * 0x100000001b3ull;
  }
  return hash == 0 ? 1 : hash;
}

RecordedFile examine_file(const fs::path& path, bool with_hash) {
  RecordedFile now;
  // A file that cannot be read (gone, or not readable by us) is not known:
  // it cannot be told from the recorded one.
  const FileDescriptor opened = try_open_regular_file(path, Symlinks::Follow);
  struct stat st;
  if (opened.get() < 0 || fstat(opened.get(), &st) != 0) return now;
  now.build_id = read_build_id(path);
  now.size = static_cast<uint64_t>(st.st_size);
  now.mtime_ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  if (with_hash) now.content_hash = file_content_hash(path);
  return now;
}

bool same_file(const RecordedFile& now, const RecordedFile& recorded) {
  if (!recorded.build_id.empty()) return now.build_id == recorded.build_id;
  if (!now.build_id.empty()) return false;
  if (now.size != recorded.size) return false;
  // Copied without its time, or touched: the same bytes are the same file.
  if (now.content_hash != 0 && recorded.content_hash != 0) return now.content_hash == recorded.content_hash;
  return now.mtime_ns == recorded.mtime_ns;
}

// Whether `file` lies inside the founder of `experiment`: the outermost of
// the *.er directories `experiment` is nested in (descendants are inside
// their founder).
static bool within_founder(const fs::path& file, const fs::path& experiment) {
  fs::path founder = fs::absolute(experiment).lexically_normal();
  if (!founder.has_filename()) founder = founder.parent_path();
  while (founder.parent_path().extension() == ".er") founder = founder.parent_path();
  const auto [end, unused] = std::mismatch(founder.begin(), founder.end(), file.begin(), file.end());
  return end == founder.end();
}

std::map<std::string, ArchivedObject> read_archive_index(const fs::path& experiment) {
  std::map<std::string, ArchivedObject> archive;
  const fs::path index = experiment / kArchiveDirectory / kArchiveIndex;
  if (!fs::exists(fs::symlink_status(index))) return archive;
  std::string text;
  try {
    text = read_regular_file(index, Symlinks::Refuse);
  } catch (const FormatError& e) {
    std::cerr << "lumen: warning: " << e.what() << "; the archive index is ignored\n";
    return archive;
  }
  try {
    const YAML::Node root = YAML::Load(text);
    for (const YAML::Node& entry : root["objects"]) {
      ArchivedObject object;
      object.file.build_id = entry["build_id"].as<std::string>("");
      object.file.size = entry["size"].as<uint64_t>(0);
      object.file.mtime_ns = entry["mtime_ns"].as<int64_t>(0);
      const std::string hash = entry["content_hash"].as<std::string>("0");
      char* end = nullptr;
      object.file.content_hash = std::strtoull(hash.c_str(), &end, 16);
      if (hash.empty() || *end != '\0') throw FormatError(index.string() + ": content_hash '" + hash + "' is not hex");
      // A copy is a file of an archives/ directory (a descendant's entries
      // name the founder's); anything else the index names is not read.
      if (const std::string copy = entry["copy"].as<std::string>(""); !copy.empty()) {
        const fs::path file = fs::absolute(experiment / kArchiveDirectory / copy).lexically_normal();
        if (fs::path(copy).is_relative() && file.parent_path().filename() == kArchiveDirectory &&
            within_founder(file, experiment))
          object.copy = file;
      }
      archive[entry["path"].as<std::string>()] = object;
    }
  } catch (const YAML::Exception& e) {
    throw FormatError(index.string() + ": not an archive index: " + e.what());
  }
  return archive;
}

SymbolFile symbol_file_for(const std::string& path, const RecordedFile& recorded,
                           const std::map<std::string, ArchivedObject>& archive) {
  const auto entry = archive.find(path);
  if (entry != archive.end() && !entry->second.copy.empty() && is_regular_file(entry->second.copy, Symlinks::Refuse))
    return {entry->second.copy.string(), ""};
  // What the file must be: the runtime's record where there is one (the
  // archive's is taken from the file later), with the archive's content hash.
  RecordedFile expected = recorded.known() || entry == archive.end() ? recorded : entry->second.file;
  if (entry != archive.end() && expected.build_id.empty() && expected.size == entry->second.file.size)
    expected.content_hash = entry->second.file.content_hash;
  if (!expected.known()) return {path, ""};
  const RecordedFile now = examine_file(path, expected.content_hash != 0);
  // One that cannot be read is said so by its reader.
  if (!now.known() || same_file(now, expected)) return {path, ""};
  static std::mutex mutex;
  static std::set<std::string> warned;
  const std::lock_guard lock(mutex);
  if (warned.insert(path).second) {
    std::cerr << "er_print: warning: " << path << " changed since the experiment was recorded (";
    if (!expected.build_id.empty())
      std::cerr << "build-id " << (now.build_id.empty() ? "none" : now.build_id) << ", recorded " << expected.build_id;
    else
      std::cerr << now.size << " bytes, recorded " << expected.size << (now.size == expected.size ? ", another time or content" : "");
    std::cerr << ") and the experiment has no copy of it: its code is shown as <unknown> ("
              << fs::path(path).filename().string()
              << ", changed since recording); collect -A on keeps a copy\n";
  }
  return {"", "changed since recording"};
}

}  // namespace lumen::analysis
