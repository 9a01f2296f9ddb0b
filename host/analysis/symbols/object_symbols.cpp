#include "object_symbols.h"

#include <cxxabi.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>

#include <gelf.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "debuginfo_files.h"
#include "regular_file.h"

namespace lumen::analysis {

namespace {

char* no_debuginfo_path = nullptr;

// The object is opened here (only a regular file), so find_elf is not used;
// debug files are found by a search that opens only regular files too.
const Dwfl_Callbacks kCallbacks = {
    dwfl_build_id_find_elf,
    find_regular_debuginfo,
    dwfl_offline_section_address,
    &no_debuginfo_path,
};

}  // namespace

ObjectSymbols::ObjectSymbols(const std::string& path) {
  dwfl_ = dwfl_begin(&kCallbacks);
  if (dwfl_ == nullptr) return;
  dwfl_report_begin(dwfl_);
  // Opened, then examined: a path that was a regular file a moment ago may
  // be a FIFO now. Bias 0: the module's addresses are the file's virtual
  // addresses. libdwfl takes the descriptor over when it accepts the file.
  FileDescriptor fd = try_open_regular_file(path, Symlinks::Follow);
  if (fd.get() >= 0) module_ = dwfl_report_elf(dwfl_, path.c_str(), path.c_str(), fd.get(), 0, false);
  if (module_ != nullptr) fd.release();
  dwfl_report_end(dwfl_, nullptr, nullptr);
}

ObjectSymbols::~ObjectSymbols() {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
}

namespace {

// The PLT stub holding `address` named after the function it jumps to
// ("clock_gettime@plt"): stubs are 16 bytes in .plt (after the resolver's
// first one) or .plt.sec, in the order of .rela.plt's relocations.
std::optional<SymbolHit> plt_stub(Elf* elf, GElf_Addr bias, uint64_t address) {
  size_t names = 0;
  if (elf == nullptr || elf_getshdrstrndx(elf, &names) != 0) return std::nullopt;
  Elf_Scn* rela = nullptr;
  std::optional<std::pair<uint64_t, bool>> stub;  // its section's start, in .plt.sec
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header;
    if (gelf_getshdr(scn, &header) == nullptr) continue;
    const char* name = elf_strptr(elf, names, header.sh_name);
    if (name == nullptr) continue;
    const std::string section = name;
    if (section == ".rela.plt") rela = scn;
    const uint64_t from = header.sh_addr + bias;
    if ((section == ".plt" || section == ".plt.sec") && address >= from && address < from + header.sh_size)
      stub = std::make_pair(from, section == ".plt.sec");
  }
  if (!stub || rela == nullptr) return std::nullopt;
  GElf_Shdr rela_header;
  gelf_getshdr(rela, &rela_header);
  Elf_Data* relocations = elf_getdata(rela, nullptr);
  Elf_Scn* dynsym = elf_getscn(elf, rela_header.sh_link);
  GElf_Shdr dynsym_header;
  if (relocations == nullptr || dynsym == nullptr || gelf_getshdr(dynsym, &dynsym_header) == nullptr) return std::nullopt;
  Elf_Data* symbols = elf_getdata(dynsym, nullptr);
  const uint64_t stub_start = stub->first + (address - stub->first) / 16 * 16;
  const long index = static_cast<long>((stub_start - stub->first) / 16) - (stub->second ? 0 : 1);
  GElf_Rela relocation;
  if (index < 0 || gelf_getrela(relocations, static_cast<int>(index), &relocation) == nullptr) return std::nullopt;
  GElf_Sym symbol;
  if (symbols == nullptr || gelf_getsym(symbols, static_cast<int>(GELF_R_SYM(relocation.r_info)), &symbol) == nullptr)
    return std::nullopt;
  const char* name = elf_strptr(elf, dynsym_header.sh_link, symbol.st_name);
  if (name == nullptr || *name == '\0') return std::nullopt;
  return SymbolHit{std::string(name) + "@plt", stub_start, 16, true};
}

}  // namespace

std::optional<SymbolHit> ObjectSymbols::lookup(uint64_t address) const {
  if (module_ == nullptr) return std::nullopt;
  GElf_Addr elf_bias = 0;
  if (auto stub = plt_stub(dwfl_module_getelf(module_, &elf_bias), elf_bias, address)) return stub;
  GElf_Off offset = 0;
  GElf_Sym symbol;
  const char* name = dwfl_module_addrinfo(module_, address, &offset, &symbol, nullptr, nullptr, nullptr);
  if (name != nullptr && *name != '\0') return SymbolHit{name, address - offset, symbol.st_size, true};
  // No symbol (stripped object): the FDE covering the address still bounds
  // the function, which names it <static>@0xSTART.
  Dwarf_Addr bias = 0;
  Dwarf_CFI* cfi = dwfl_module_eh_cfi(module_, &bias);
  Dwarf_Frame* frame = nullptr;
  if (cfi != nullptr && dwarf_cfi_addrframe(cfi, address - bias, &frame) == 0) {
    Dwarf_Addr start = 0, end = 0;
    bool signal_frame = false;
    dwarf_frame_info(frame, &start, &end, &signal_frame);
    std::free(frame);
    // The one signal frame of a stripped libc is its sigreturn trampoline,
    // which the kernel returns through after a handler; it has no symbol.
    return SymbolHit{signal_frame ? "__restore_rt" : "", start + bias, end > start ? end - start : 0, false};
  }
  return std::nullopt;
}

namespace {

// A relative source path (as compilers record it when invoked with one, or
// ccache rewrites it) is relative to the unit's compile directory. A DWARF 5
// line table names the compile directory as its directory 0, and elfutils
// has already put a relative one in front of the file: glibc's "./nptl"
// and "./nptl/pthread_create.c" mean nptl/pthread_create.c, not
// nptl/nptl/pthread_create.c.
std::string in_compile_directory(const char* file, const char* compile_dir) {
  if (file[0] == '/' || compile_dir == nullptr || *compile_dir == '\0') return file;
  const std::filesystem::path path = std::filesystem::path(file).lexically_normal();
  const std::filesystem::path directory = std::filesystem::path(compile_dir).lexically_normal();
  if (directory.is_relative()) {
    if (std::mismatch(directory.begin(), directory.end(), path.begin(), path.end()).first == directory.end())
      return path.string();
  }
  return (directory / path).lexically_normal().string();
}

}  // namespace

namespace {

// The compile unit whose code holds `address`, into `cu`, with the
// module's bias; false when none does. `ranges` is filled at the first
// address libdw cannot place.
bool compile_unit_at(Dwfl_Module* module, std::optional<std::vector<CompileUnitRange>>& ranges, uint64_t address,
                     Dwarf_Die* cu, uint64_t* bias) {
  Dwarf_Addr module_bias = 0;
  if (Dwarf_Die* found = dwfl_module_addrdie(module, address, &module_bias)) {
    *cu = *found;
    *bias = module_bias;
    return true;
  }
  Dwarf* dwarf = dwfl_module_getdwarf(module, &module_bias);
  if (dwarf == nullptr) return false;
  if (!ranges) {
    ranges.emplace();
    Dwarf_Addr unit_bias = 0;
    for (Dwarf_Die* unit = nullptr; (unit = dwfl_module_nextcu(module, unit, &unit_bias)) != nullptr;) {
      Dwarf_Addr base = 0, low = 0, high = 0;
      for (ptrdiff_t at = 0; (at = dwarf_ranges(unit, at, &base, &low, &high)) > 0;)
        if (high > low) ranges->push_back({low, high, dwarf_dieoffset(unit)});
    }
    std::sort(ranges->begin(), ranges->end(),
              [](const CompileUnitRange& a, const CompileUnitRange& b) { return a.low < b.low; });
  }
  const uint64_t wanted = address - module_bias;
  const auto after = std::upper_bound(ranges->begin(), ranges->end(), wanted,
                                      [](uint64_t at, const CompileUnitRange& range) { return at < range.low; });
  // Ranges may nest or overlap (a unit's several ranges): the nearest start
  // at or below the address that still holds it.
  for (auto range = after; range != ranges->begin();) {
    --range;
    if (wanted < range->high) {
      *bias = module_bias;
      return dwarf_offdie(dwarf, range->unit_offset, cu) != nullptr;
    }
    if (after - range > 16) break;
  }
  return false;
}

}  // namespace

std::optional<SourceLine> ObjectSymbols::source_line(uint64_t address) const {
  if (module_ == nullptr) return std::nullopt;
  if (Dwfl_Line* line = dwfl_module_getsrc(module_, address)) {
    int number = 0;
    const char* file = dwfl_lineinfo(line, nullptr, &number, nullptr, nullptr, nullptr);
    if (file == nullptr || number <= 0) return std::nullopt;
    return SourceLine{in_compile_directory(file, dwfl_line_comp_dir(line)), number};
  }
  // libdw found no unit by address (no .debug_aranges): the unit's own
  // line table.
  Dwarf_Die cu;
  uint64_t bias = 0;
  if (!compile_unit_at(module_, unit_ranges_, address, &cu, &bias)) return std::nullopt;
  Dwarf_Line* line = dwarf_getsrc_die(&cu, address - bias);
  int number = 0;
  const char* file = line != nullptr ? dwarf_linesrc(line, nullptr, nullptr) : nullptr;
  if (file == nullptr || dwarf_lineno(line, &number) != 0 || number <= 0) return std::nullopt;
  Dwarf_Attribute attribute;
  const char* directory = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attribute));
  return SourceLine{in_compile_directory(file, directory), number};
}

std::vector<std::string> ObjectSymbols::names_at(uint64_t start) const {
  std::vector<std::string> names;
  if (module_ == nullptr) return names;
  const int count = dwfl_module_getsymtab(module_);
  for (int i = 1; i < count; ++i) {
    GElf_Sym symbol;
    GElf_Addr value = 0;
    const char* name = dwfl_module_getsym_info(module_, i, &symbol, &value, nullptr, nullptr, nullptr);
    if (name == nullptr || *name == '\0' || value != start || GELF_ST_TYPE(symbol.st_info) != STT_FUNC) continue;
    names.emplace_back(name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

std::optional<uint64_t> ObjectSymbols::exported_function(const std::string& name) const {
  if (module_ == nullptr) return std::nullopt;
  if (!exported_) {
    exported_.emplace();
    const int count = dwfl_module_getsymtab(module_);
    for (int i = 1; i < count; ++i) {
      GElf_Sym symbol;
      GElf_Addr value = 0;
      const char* found = dwfl_module_getsym_info(module_, i, &symbol, &value, nullptr, nullptr, nullptr);
      const int binding = GELF_ST_BIND(symbol.st_info);
      if (found == nullptr || *found == '\0' || GELF_ST_TYPE(symbol.st_info) != STT_FUNC ||
          symbol.st_shndx == SHN_UNDEF || (binding != STB_GLOBAL && binding != STB_WEAK))
        continue;
      // A versioned name ("f@@VERSION" in a symbol table) is the function f.
      exported_->try_emplace(std::string(found).substr(0, std::string(found).find('@')), value);
    }
  }
  const auto it = exported_->find(name);
  return it == exported_->end() ? std::nullopt : std::optional<uint64_t>(it->second);
}

std::vector<uint8_t> ObjectSymbols::code_bytes(uint64_t address, uint64_t size) const {
  std::vector<uint8_t> bytes;
  if (module_ == nullptr) return bytes;
  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(module_, &bias);
  if (elf == nullptr) return bytes;
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr header;
    if (gelf_getshdr(scn, &header) == nullptr || header.sh_type != SHT_PROGBITS || (header.sh_flags & SHF_EXECINSTR) == 0)
      continue;
    const uint64_t from = header.sh_addr + bias;
    if (address < from || address >= from + header.sh_size) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    if (data == nullptr || data->d_buf == nullptr) return bytes;
    const uint64_t at = address - from;
    const uint64_t available = std::min<uint64_t>(data->d_size, header.sh_size);
    if (at >= available) return bytes;
    const uint64_t n = std::min(size, available - at);
    const auto* begin = static_cast<const uint8_t*>(data->d_buf) + at;
    bytes.assign(begin, begin + n);
    return bytes;
  }
  return bytes;
}

std::vector<std::string> ObjectSymbols::inline_chain(uint64_t address) const {
  std::vector<std::string> chain;
  if (module_ == nullptr) return chain;
  Dwarf_Die cu;
  uint64_t bias = 0;
  if (!compile_unit_at(module_, unit_ranges_, address, &cu, &bias)) return chain;
  Dwarf_Die* scopes = nullptr;
  const int count = dwarf_getscopes(&cu, address - bias, &scopes);
  for (int i = 0; i < count; ++i) {
    if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) continue;
    Dwarf_Attribute attribute;
    const char* linkage = dwarf_formstring(dwarf_attr_integrate(&scopes[i], DW_AT_linkage_name, &attribute));
    const char* name = linkage != nullptr ? linkage : dwarf_diename(&scopes[i]);
    chain.emplace_back(name != nullptr ? name : "<inlined>");
  }
  std::free(scopes);
  return chain;
}

int ObjectSymbols::machine() const {
  if (module_ == nullptr) return 0;
  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(module_, &bias);
  GElf_Ehdr header;
  return elf != nullptr && gelf_getehdr(elf, &header) != nullptr ? header.e_machine : 0;
}

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> plain(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && plain ? std::string(plain.get()) : name;
}

}  // namespace lumen::analysis
