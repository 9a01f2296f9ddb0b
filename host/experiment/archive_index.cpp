#include "archive_index.h"

#include <algorithm>

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <iostream>
#include <mutex>
#include <set>

#include "format_error.h"
#include "regular_file.h"

namespace lumen::analysis {

namespace fs = std::filesystem;

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
    static const char digits[] = "0123456789abcdef";
    for (ssize_t i = 0; i < length; ++i) {
      const auto byte = static_cast<const unsigned char*>(bytes)[i];
      hex += digits[byte >> 4];
      hex += digits[byte & 15];
    }
    elf_end(elf);
  }
  return hex;
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
      object.build_id = entry["build_id"].as<std::string>("");
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

std::string symbol_file_for(const std::string& path, const std::map<std::string, ArchivedObject>& archive) {
  const auto entry = archive.find(path);
  if (entry == archive.end()) return path;
  const ArchivedObject& archived = entry->second;
  const bool copied = !archived.copy.empty() && is_regular_file(archived.copy, Symlinks::Refuse);
  if (!is_regular_file(path, Symlinks::Follow)) return copied ? archived.copy.string() : path;
  if (archived.build_id.empty() || read_build_id(path) == archived.build_id) return path;
  if (copied) return archived.copy.string();
  static std::mutex mutex;
  static std::set<std::string> warned;
  const std::lock_guard lock(mutex);
  if (warned.insert(path).second)
    std::cerr << "er_print: warning: " << path << " was rebuilt since the experiment was recorded (build-id "
              << read_build_id(path) << ", recorded " << archived.build_id
              << ") and the experiment has no copy of it (collect -A copy); its function names may be wrong\n";
  return path;
}

}  // namespace lumen::analysis
