#include "mapped_file.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

namespace lumen::kernel {

const MappedFiles::File& MappedFiles::examine(const std::string& path) {
  if (const auto found = files_.find(path); found != files_.end()) return found->second;
  File file;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  struct stat status;
  if (fd >= 0 && fstat(fd, &status) == 0 && S_ISREG(status.st_mode)) {
    file.identity.file_size = static_cast<uint64_t>(status.st_size);
    file.identity.mtime_ns = static_cast<int64_t>(status.st_mtim.tv_sec) * 1'000'000'000 + status.st_mtim.tv_nsec;
    file.identity.inode = status.st_ino;
    file.identity.device = status.st_dev;
    elf_version(EV_CURRENT);
    if (Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr); elf != nullptr) {
      size_t count = 0;
      if (elf_kind(elf) == ELF_K_ELF && elf_getphdrnum(elf, &count) == 0) {
        file.elf = true;
        for (size_t i = 0; i < count; ++i) {
          GElf_Phdr header;
          if (gelf_getphdr(elf, static_cast<int>(i), &header) != nullptr && header.p_type == PT_LOAD)
            file.segments.push_back({header.p_offset, header.p_filesz, header.p_vaddr});
        }
        const void* bytes = nullptr;
        const ssize_t length = dwelf_elf_gnu_build_id(elf, &bytes);
        if (length > 0 && static_cast<size_t>(length) <= sizeof file.identity.build_id) {
          file.identity.build_id_bytes = static_cast<uint32_t>(length);
          std::memcpy(file.identity.build_id, bytes, static_cast<size_t>(length));
        }
      }
      elf_end(elf);
    }
  }
  if (fd >= 0) close(fd);
  return files_.emplace(path, std::move(file)).first->second;
}

std::optional<uint64_t> MappedFiles::load_bias(const std::string& path, uint64_t start, uint64_t file_offset) {
  const File& file = examine(path);
  if (!file.elf) return std::nullopt;
  // The segment whose file range holds the mapping's offset: that offset
  // is at the segment's address plus its distance into the segment.
  for (const Segment& s : file.segments)
    if (file_offset >= (s.file_offset & ~uint64_t{4095}) && file_offset < s.file_offset + s.file_bytes)
      return start - (s.address + file_offset - s.file_offset);
  return std::nullopt;
}

const metadata::LoadObjectIdentity& MappedFiles::identity(const std::string& path) { return examine(path).identity; }

}  // namespace lumen::kernel
