#include "stacks/vdso_image.h"

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "experiment_metadata.h"
#include "mapped_memory.h"
#include "recording/raw_syscalls.h"
#include "recording/stream_writer.h"

namespace lumen::collector {

namespace {

constexpr size_t kMostBytes = 1 << 20;  // a vDSO is a few pages; anything larger is not one

// The image's extent from its own headers: its loaded segments and its
// section headers (which the kernel maps with it: that is where the symbol
// tables are found).
size_t image_bytes(const ElfW(Ehdr) * elf) {
  size_t bytes = elf->e_shoff + static_cast<size_t>(elf->e_shnum) * elf->e_shentsize;
  const auto* program = reinterpret_cast<const ElfW(Phdr)*>(reinterpret_cast<const char*>(elf) + elf->e_phoff);
  for (int i = 0; i < elf->e_phnum; ++i)
    if (program[i].p_type == PT_LOAD) bytes = std::max<size_t>(bytes, program[i].p_offset + program[i].p_filesz);
  return bytes;
}


}  // namespace

void save_vdso_image(const std::string& directory) {
  const uintptr_t base = getauxval(AT_SYSINFO_EHDR);
  if (base == 0 || !metadata::memory_is_mapped(base, sizeof(ElfW(Ehdr)))) return;
  const auto* elf = reinterpret_cast<const ElfW(Ehdr)*>(base);
  if (std::memcmp(elf->e_ident, ELFMAG, SELFMAG) != 0 || !metadata::memory_is_mapped(base, elf->e_phoff + elf->e_phnum * sizeof(ElfW(Phdr))))
    return;
  const size_t bytes = image_bytes(elf);
  if (bytes == 0 || bytes > kMostBytes || !metadata::memory_is_mapped(base, bytes)) return;
  const std::string path = directory + "/" + metadata::kVdsoImageFile;
  const int fd = raw_open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return;
  size_t written = 0;
  while (written < bytes) {
    const ssize_t n = raw_write(fd, reinterpret_cast<const char*>(base) + written, bytes - written);
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
  syscall(SYS_close, fd);
  charge_size_limit(written);  // -L counts the whole experiment
}

}  // namespace lumen::collector
