// What the runtime says of the file a load object was mapped from, written
// after the path of its LUMEN_LOADOBJECT_MAPPED record (record_format.h):
// its GNU build-id, read from the mapped notes, and the file's size,
// modification time and inode when mapped. Analysis and the archive writer
// compare the file at that path with it, so a file rebuilt since is never
// read for the recorded code's names. A record without it (older
// experiments) identifies nothing.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>

namespace lumen::metadata {

inline constexpr uint32_t kLoadObjectIdentityMagic = 0x44494f4cu;  // "LOID"

struct LoadObjectIdentity {
  uint32_t magic = kLoadObjectIdentityMagic;
  uint32_t build_id_bytes = 0;  // 0: the object has none
  uint8_t build_id[40] = {};
  uint64_t file_size = 0;  // with mtime_ns and inode: 0 when the file could not be examined
  int64_t mtime_ns = 0;
  uint64_t inode = 0;
  uint64_t device = 0;
};
static_assert(sizeof(LoadObjectIdentity) == 80, "load-object identity layout");

// The identity in the `bytes` that follow a record's path, if they hold one.
inline std::optional<LoadObjectIdentity> read_loadobject_identity(const void* bytes, size_t size) {
  LoadObjectIdentity identity;
  if (size < sizeof identity) return std::nullopt;
  std::memcpy(&identity, bytes, sizeof identity);
  if (identity.magic != kLoadObjectIdentityMagic || identity.build_id_bytes > sizeof identity.build_id)
    return std::nullopt;
  return identity;
}

}  // namespace lumen::metadata
