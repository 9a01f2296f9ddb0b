#include "plt_stubs.h"

#include <gelf.h>

#include <string>

namespace lumen::analysis {

PltStubs::PltStubs(Elf* elf, uint64_t bias) : elf_(elf) {
  size_t names = 0;
  if (elf == nullptr || elf_getshdrstrndx(elf, &names) != 0) return;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header;
    if (gelf_getshdr(scn, &header) == nullptr) continue;
    const char* name = elf_strptr(elf, names, header.sh_name);
    if (name == nullptr) continue;
    const std::string section = name;
    if (section == ".rela.plt") relocations_ = scn;
    if (section == ".plt" || section == ".plt.sec")
      sections_.push_back({header.sh_addr + bias, header.sh_size, section == ".plt.sec"});
  }
}

// Stubs are 16 bytes in .plt (after the resolver's first one) or .plt.sec,
// in the order of .rela.plt's relocations.
std::optional<SymbolHit> PltStubs::at(uint64_t address) const {
  const StubSection* stub = nullptr;
  for (const StubSection& section : sections_)
    if (address >= section.start && address < section.start + section.size) stub = &section;
  if (stub == nullptr || relocations_ == nullptr) return std::nullopt;
  GElf_Shdr rela_header;
  if (gelf_getshdr(relocations_, &rela_header) == nullptr) return std::nullopt;
  Elf_Data* relocations = elf_getdata(relocations_, nullptr);
  Elf_Scn* dynsym = elf_getscn(elf_, rela_header.sh_link);
  GElf_Shdr dynsym_header;
  if (relocations == nullptr || dynsym == nullptr || gelf_getshdr(dynsym, &dynsym_header) == nullptr) return std::nullopt;
  Elf_Data* symbols = elf_getdata(dynsym, nullptr);
  const uint64_t stub_start = stub->start + (address - stub->start) / 16 * 16;
  const long index = static_cast<long>((stub_start - stub->start) / 16) - (stub->secondary ? 0 : 1);
  GElf_Rela relocation;
  if (index < 0 || gelf_getrela(relocations, static_cast<int>(index), &relocation) == nullptr) return std::nullopt;
  GElf_Sym symbol;
  if (symbols == nullptr || gelf_getsym(symbols, static_cast<int>(GELF_R_SYM(relocation.r_info)), &symbol) == nullptr)
    return std::nullopt;
  const char* name = elf_strptr(elf_, dynsym_header.sh_link, symbol.st_name);
  if (name == nullptr || *name == '\0') return std::nullopt;
  return SymbolHit{std::string(name) + "@plt", stub_start, 16, true};
}

}  // namespace lumen::analysis
