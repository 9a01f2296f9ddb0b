#include "debuginfo_files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "archive_index.h"
#include "regular_file.h"

namespace lumen::analysis {

namespace {

namespace fs = std::filesystem;

const char* const kSystemDebugDirectory = "/usr/lib/debug";

std::string module_build_id(Dwfl_Module* module) {
  const unsigned char* bits = nullptr;
  GElf_Addr address = 0;
  const int length = dwfl_module_build_id(module, &bits, &address);
  static const char digits[] = "0123456789abcdef";
  std::string hex;
  for (int i = 0; i < length; ++i) {
    hex += digits[bits[i] >> 4];
    hex += digits[bits[i] & 15];
  }
  return hex;
}

std::vector<fs::path> candidates(const std::string& build_id, const char* file_name, const char* debuglink) {
  std::vector<fs::path> list;
  if (build_id.size() > 2)
    list.push_back(fs::path(kSystemDebugDirectory) / ".build-id" / build_id.substr(0, 2) /
                   (build_id.substr(2) + ".debug"));
  if (debuglink != nullptr && debuglink[0] != '\0' && file_name != nullptr) {
    const fs::path directory = fs::path(file_name).parent_path();
    const fs::path link(debuglink);
    if (link.is_absolute()) {
      list.push_back(link);
    } else {
      if (link != fs::path(file_name).filename()) list.push_back(directory / link);
      list.push_back(directory / ".debug" / link);
      if (directory.is_absolute()) list.push_back(fs::path(kSystemDebugDirectory) / directory.relative_path() / link);
    }
  }
  return list;
}

}  // namespace

int find_regular_debuginfo(Dwfl_Module* module, void**, const char*, Dwarf_Addr, const char* file_name,
                           const char* debuglink_file, GElf_Word, char** debuginfo_file_name) {
  const std::string build_id = module_build_id(module);
  for (const fs::path& candidate : candidates(build_id, file_name, debuglink_file)) {
    // Opened first, then examined: a regular file, and the object's own.
    FileDescriptor fd = try_open_regular_file(candidate, Symlinks::Follow);
    if (fd.get() < 0) continue;
    if (!build_id.empty() && read_build_id(candidate) != build_id) continue;
    *debuginfo_file_name = strdup(candidate.c_str());
    return fd.release();
  }
  errno = ENOENT;
  return -1;
}

}  // namespace lumen::analysis
