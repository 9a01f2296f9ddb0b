// What a load-object record needs of a file another process mapped: the
// load bias of an executable mapping (from the file's program headers) and
// the file's identity (build-id, size, time, inode), read once per file.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "loadobject_identity.h"

namespace lumen::kernel {

class MappedFiles {
 public:
  // The address minus the file's virtual address for `path` mapped at
  // `start` from `file_offset`; nullopt when the file is no ELF object
  // this machine can read (gone, or not ELF), whose code stays unnamed.
  std::optional<uint64_t> load_bias(const std::string& path, uint64_t start, uint64_t file_offset);
  const metadata::LoadObjectIdentity& identity(const std::string& path);

 private:
  struct Segment {
    uint64_t file_offset, file_bytes, address;
  };
  struct File {
    bool elf = false;
    std::vector<Segment> segments;  // PT_LOAD
    metadata::LoadObjectIdentity identity;
  };
  const File& examine(const std::string& path);
  std::map<std::string, File> files_;
};

}  // namespace lumen::kernel
