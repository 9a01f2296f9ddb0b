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
#include "inline_chains.h"
#include "plt_stubs.h"
#include "regular_file.h"
#include "symbol_index.h"

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

ObjectSymbols::ObjectSymbols(const std::string& path, Lookups lookups) : lookups_(lookups) {
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

std::optional<SymbolHit> ObjectSymbols::lookup(uint64_t address) const {
  if (module_ == nullptr) return std::nullopt;
  if (!plt_stubs_) {
    GElf_Addr elf_bias = 0;
    Elf* elf = dwfl_module_getelf(module_, &elf_bias);
    plt_stubs_ = std::make_unique<PltStubs>(elf, elf_bias);
  }
  if (auto stub = plt_stubs_->at(address)) return stub;
  if (!symbol_index_) symbol_index_ = std::make_unique<SymbolIndex>(module_, lookups_ == Lookups::Tables);
  const auto symbol = symbol_index_->at(address);
  if (symbol && *symbol->name != '\0') return SymbolHit{symbol->name, symbol->start, symbol->size, true};
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
    return SourceLine{source_file(file, dwfl_line_comp_dir(line)), number};
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
  return SourceLine{source_file(file, directory), number};
}

// libdw's line tables are sorted per unit and searched by address already
// (dwfl_module_getsrc): what a line costs beyond that is making its path
// whole, once per file entry here.
std::string ObjectSymbols::source_file(const char* recorded, const char* compile_dir) const {
  if (lookups_ == Lookups::Libdwfl) return in_compile_directory(recorded, compile_dir);
  const auto [it, inserted] = source_files_.try_emplace({recorded, compile_dir});
  if (inserted) it->second = in_compile_directory(recorded, compile_dir);
  return it->second;
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

namespace {

// Each function symbol the module defines (in its symbol table, or its
// debug file's): its name, symbol and value.
template <typename Visit>
void for_each_defined_function(Dwfl_Module* module, Visit visit) {
  const int count = dwfl_module_getsymtab(module);
  for (int i = 1; i < count; ++i) {
    GElf_Sym symbol;
    GElf_Addr value = 0;
    const char* name = dwfl_module_getsym_info(module, i, &symbol, &value, nullptr, nullptr, nullptr);
    if (name == nullptr || *name == '\0' || GELF_ST_TYPE(symbol.st_info) != STT_FUNC || symbol.st_shndx == SHN_UNDEF)
      continue;
    visit(name, symbol, value);
  }
}

// "f@@VERSION" (a versioned name in a symbol table) is the function f.
std::string unversioned(const char* name) {
  const std::string text = name;
  return text.substr(0, text.find('@'));
}

}  // namespace

std::optional<SymbolHit> ObjectSymbols::function_named(const std::string& name) const {
  if (module_ == nullptr) return std::nullopt;
  if (!by_name_) {
    by_name_.emplace();
    for_each_defined_function(module_, [&](const char* found, const GElf_Sym& symbol, GElf_Addr value) {
      const auto [it, inserted] = by_name_->try_emplace(unversioned(found), SymbolHit{found, value, symbol.st_size, true});
      // The same symbol in .symtab and .dynsym is one function; two at
      // different addresses (static functions of one name) are not.
      if (!inserted && it->second && it->second->start != value) it->second.reset();
    });
  }
  const auto it = by_name_->find(name);
  return it == by_name_->end() ? std::nullopt : it->second;
}

std::optional<uint64_t> ObjectSymbols::exported_function(const std::string& name) const {
  if (module_ == nullptr) return std::nullopt;
  if (!exported_) {
    exported_.emplace();
    for_each_defined_function(module_, [&](const char* found, const GElf_Sym& symbol, GElf_Addr value) {
      const int binding = GELF_ST_BIND(symbol.st_info);
      if (binding == STB_GLOBAL || binding == STB_WEAK) exported_->try_emplace(unversioned(found), value);
    });
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

std::vector<InlinedCall> ObjectSymbols::inline_chain(uint64_t address) const {
  if (module_ == nullptr) return {};
  Dwarf_Die cu;
  uint64_t bias = 0;
  if (!compile_unit_at(module_, unit_ranges_, address, &cu, &bias)) return {};
  if (!inline_chains_ && lookups_ == Lookups::Tables) inline_chains_ = std::make_unique<InlineChains>();
  const InlineChain chain =
      lookups_ == Lookups::Libdwfl ? inline_chain_by_walk(cu, address - bias) : inline_chains_->at(cu, address - bias);
  std::vector<InlinedCall> calls;
  calls.reserve(chain.size());
  for (const InlinedInstance& instance : chain) {
    InlinedCall call{instance.name, {}, ""};
    if (instance.call_file != nullptr && instance.call_line > 0)
      call.call_site = {source_file(instance.call_file, instance.compile_dir), instance.call_line};
    if (instance.decl_file != nullptr) call.defining_file = source_file(instance.decl_file, instance.compile_dir);
    calls.push_back(std::move(call));
  }
  // A function DWARF gives no file (a lambda's call operator) is in the
  // file of its lines: where it inlined the next level in, or the
  // address's own line.
  for (size_t k = 0; k < calls.size(); ++k)
    if (calls[k].defining_file.empty()) {
      if (k > 0) calls[k].defining_file = calls[k - 1].call_site.file;
      else if (const auto line = source_line(address)) calls[k].defining_file = line->file;
    }
  return calls;
}

std::optional<std::string> ObjectSymbols::defining_file(uint64_t address) const {
  if (module_ == nullptr) return std::nullopt;
  Dwarf_Die cu;
  uint64_t bias = 0;
  if (!compile_unit_at(module_, unit_ranges_, address, &cu, &bias)) return std::nullopt;
  if (!inline_chains_ && lookups_ == Lookups::Tables) inline_chains_ = std::make_unique<InlineChains>();
  const char* file = lookups_ == Lookups::Libdwfl ? defining_file_by_walk(cu, address - bias)
                                                  : inline_chains_->defining_file(cu, address - bias);
  if (file == nullptr) return std::nullopt;
  Dwarf_Attribute attribute;
  return source_file(file, dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attribute)));
}

int ObjectSymbols::machine() const {
  if (module_ == nullptr) return 0;
  GElf_Addr bias = 0;
  Elf* elf = dwfl_module_getelf(module_, &bias);
  GElf_Ehdr header;
  return elf != nullptr && gelf_getehdr(elf, &header) != nullptr ? header.e_machine : 0;
}

std::string demangle(const std::string& name) {
  // gfortran names a module procedure __MODULE_MOD_PROCEDURE (Fortran names
  // are lower case, so "_MOD_" is the separator); shown as gdb does,
  // module::procedure.
  if (name.rfind("__", 0) == 0) {
    const size_t separator = name.find("_MOD_", 2);
    if (separator != std::string::npos && separator > 2 && separator + 5 < name.size())
      return name.substr(2, separator - 2) + "::" + name.substr(separator + 5);
    return name;
  }
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> plain(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && plain ? std::string(plain.get()) : name;
}

}  // namespace lumen::analysis
