#include "vdso_copy.h"

#include "mapped_memory.h"

#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <vector>

namespace lumen::kernel {

namespace {


struct Vdso {
  std::string image;
  uint64_t link_address = 0;
};

const Vdso& vdso() {
  static const Vdso v = [] {
    Vdso out;
    const uintptr_t base = getauxval(AT_SYSINFO_EHDR);
    if (base == 0 || !metadata::memory_is_mapped(base, sizeof(ElfW(Ehdr)))) return out;
    const auto* elf = reinterpret_cast<const ElfW(Ehdr)*>(base);
    if (std::memcmp(elf->e_ident, ELFMAG, SELFMAG) != 0 ||
        !metadata::memory_is_mapped(base, elf->e_phoff + static_cast<size_t>(elf->e_phnum) * sizeof(ElfW(Phdr))))
      return out;
    // Its extent: the loaded segments and the section headers mapped with them.
    size_t bytes = elf->e_shoff + static_cast<size_t>(elf->e_shnum) * elf->e_shentsize;
    const auto* program = reinterpret_cast<const ElfW(Phdr)*>(base + elf->e_phoff);
    bool first = true;
    for (int i = 0; i < elf->e_phnum; ++i)
      if (program[i].p_type == PT_LOAD) {
        bytes = std::max<size_t>(bytes, program[i].p_offset + program[i].p_filesz);
        if (first) out.link_address = program[i].p_vaddr - program[i].p_offset;
        first = false;
      }
    if (bytes == 0 || bytes > (1u << 20) || !metadata::memory_is_mapped(base, bytes)) return out;
    out.image.assign(reinterpret_cast<const char*>(base), bytes);
    return out;
  }();
  return v;
}

}  // namespace

const std::string& vdso_image() { return vdso().image; }
uint64_t vdso_link_address() { return vdso().link_address; }

}  // namespace lumen::kernel
