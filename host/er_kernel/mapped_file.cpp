#include "mapped_file.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <cstring>

namespace lumen::kernel {

namespace {

bool same_file(const metadata::LoadObjectIdentity& known, const struct stat& now) {
  return known.inode == now.st_ino && known.device == now.st_dev &&
         known.file_size == static_cast<uint64_t>(now.st_size) &&
         known.mtime_ns == static_cast<int64_t>(now.st_mtim.tv_sec) * 1'000'000'000 + now.st_mtim.tv_nsec;
}

}  // namespace

const MappedFiles::File& MappedFiles::examine(const std::string& path) {
  struct stat before;
  // Examined before opening: a device or FIFO another user mapped is never
  // opened by er_kernel (which runs as root).
  const bool regular = stat(path.c_str(), &before) == 0 && S_ISREG(before.st_mode);
  if (const auto found = files_.find(path); found != files_.end() && (!regular || same_file(found->second.identity, before)))
    return found->second;
  File file;
  const int fd = regular ? open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) : -1;
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
            file.segments.push_back({header.p_offset, header.p_filesz, header.p_vaddr, (header.p_flags & PF_X) != 0});
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
  return files_.insert_or_assign(path, std::move(file)).first->second;
}

std::optional<uint64_t> MappedFiles::bias_of(const std::vector<Segment>& segments, uint64_t start,
                                             uint64_t file_offset, uint64_t page_size) {
  // The segment's first page is mapped from its offset rounded down to a
  // page: that offset is at its address rounded down alike.
  for (const Segment& s : segments) {
    const uint64_t first_page = s.file_offset & ~(page_size - 1);
    if (s.executable && file_offset >= first_page && file_offset < s.file_offset + s.file_bytes)
      return start - (s.address + file_offset - s.file_offset);
  }
  return std::nullopt;
}

std::optional<uint64_t> MappedFiles::load_bias(const std::string& path, uint64_t start, uint64_t file_offset) {
  const File& file = examine(path);
  if (!file.elf) return std::nullopt;
  static const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  return bias_of(file.segments, start, file_offset, page);
}

const metadata::LoadObjectIdentity& MappedFiles::identity(const std::string& path) { return examine(path).identity; }

}  // namespace lumen::kernel
