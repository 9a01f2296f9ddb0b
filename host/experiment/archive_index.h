// An experiment's archives/ directory: for each load object any event
// touched, its path, GNU build-id, size, modification time and (without a
// build-id) content hash as recorded, and a copy of the file itself
// (archives/index.yaml lists them). Analysis reads an object's copy when
// there is one, else the file at its path only while it is the one
// recorded: a file rebuilt since is never read for the recorded code.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace lumen::analysis {

inline constexpr const char* kArchiveDirectory = "archives";
inline constexpr const char* kArchiveIndex = "index.yaml";

// What was recorded of the file an object was mapped from: by the runtime
// (loadobject_identity.h), then by the archive.
struct RecordedFile {
  std::string build_id;       // hex; empty when the object has none or it is unknown
  uint64_t size = 0;          // 0: unknown
  int64_t mtime_ns = 0;
  uint64_t content_hash = 0;  // file_content_hash; 0: unknown
  bool known() const { return !build_id.empty() || size != 0; }
};

struct ArchivedObject {
  RecordedFile file;
  std::filesystem::path copy;  // absolute; empty when not copied
};

// `size` bytes as lowercase hex.
std::string hex_bytes(const void* bytes, size_t size);

// The GNU build-id of an ELF file as hex; empty when it has none or cannot
// be read.
std::string read_build_id(const std::filesystem::path& file);

// A 64-bit FNV-1a hash of a regular file's bytes, never 0; 0 when it cannot
// be read. Tells a file without a build-id from another.
uint64_t file_content_hash(const std::filesystem::path& file);

// What the file at `path` is now (its build-id, size, time and, when
// `with_hash`, content hash); unknown when it is no regular file we may read.
RecordedFile examine_file(const std::filesystem::path& path, bool with_hash);

// Whether `now` (examine_file's) is the file `recorded` describes: the same
// build-id where one was recorded, else the same content hash where both
// have one, else the same size and modification time.
bool same_file(const RecordedFile& now, const RecordedFile& recorded);

// Reads archives/index.yaml of `experiment`; empty when there is none.
// A malformed index is a FormatError naming the file.
std::map<std::string, ArchivedObject> read_archive_index(const std::filesystem::path& experiment);

struct SymbolFile {
  std::string file;             // empty: none
  std::string unnamed_because;  // why, when there is none although the path holds a file
};

// The file to read the symbols of the object recorded at `path` from: its
// archived copy when there is one, else the file at `path` while it is the
// one `recorded` (the runtime's record; else the archive's) describes, or
// when nothing was recorded of it. A file changed since has none, said on
// stderr once per object; one that is gone is `path` (said by its reader).
SymbolFile symbol_file_for(const std::string& path, const RecordedFile& recorded,
                           const std::map<std::string, ArchivedObject>& archive);

}  // namespace lumen::analysis
