// What a load-object record needs of a file another process mapped: the
// load bias of an executable mapping (from the file's program headers) and
// the file's identity (build-id, size, time, inode). A file is read once
// while it stays the same file (same inode, size and time); one replaced
// meanwhile (a rebuilt program) is read again. Only regular files are
// opened: a path comes from another user's process.
#pragma once

#include <sys/stat.h>

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

  struct Segment {
    uint64_t file_offset, file_bytes, address;
    bool executable;
  };
  // The bias of a mapping at `start` from `file_offset` of an object with
  // these PT_LOAD segments: the executable segment holding that offset
  // (the kernel reports only executable mappings; a read-only segment may
  // share its first page, as lld lays objects out).
  static std::optional<uint64_t> bias_of(const std::vector<Segment>& segments, uint64_t start, uint64_t file_offset,
                                         uint64_t page_size);

 private:
  struct File {
    bool elf = false;
    std::vector<Segment> segments;  // PT_LOAD
    metadata::LoadObjectIdentity identity;
  };
  const File& examine(const std::string& path);
  std::map<std::string, File> files_;
};

}  // namespace lumen::kernel
