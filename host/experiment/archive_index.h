// An experiment's archives/ directory: for each load object any event
// touched, its path and GNU build-id when collected, and in copy mode the
// file itself (archives/index.yaml lists them). Analysis opens the archived
// copy when the original is gone or was rebuilt, and warns when a rebuilt
// object has no copy.
#pragma once

#include <filesystem>
#include <map>
#include <string>

namespace lumen::analysis {

inline constexpr const char* kArchiveDirectory = "archives";
inline constexpr const char* kArchiveIndex = "index.yaml";

struct ArchivedObject {
  std::string build_id;             // hex; empty when the object has none
  std::filesystem::path copy;       // absolute; empty when not copied
};

// The GNU build-id of an ELF file as hex; empty when it has none or cannot
// be read.
std::string read_build_id(const std::filesystem::path& file);

// Reads archives/index.yaml of `experiment`; empty when there is none.
// A malformed index is a FormatError naming the file.
std::map<std::string, ArchivedObject> read_archive_index(const std::filesystem::path& experiment);

// The file to read `path`'s symbols from: the original when it is there and
// its build-id is the archived one, else the archived copy. Says on stderr
// (once per object) when neither matches.
std::string symbol_file_for(const std::string& path, const std::map<std::string, ArchivedObject>& archive);

}  // namespace lumen::analysis
