#include "object_symbols.h"

#include <cxxabi.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <cstdlib>
#include <memory>

namespace lumen::analysis {

namespace {

char* no_debuginfo_path = nullptr;

const Dwfl_Callbacks kCallbacks = {
    dwfl_build_id_find_elf,
    dwfl_standard_find_debuginfo,
    dwfl_offline_section_address,
    &no_debuginfo_path,
};

}  // namespace

ObjectSymbols::ObjectSymbols(const std::string& path) {
  dwfl_ = dwfl_begin(&kCallbacks);
  if (dwfl_ == nullptr) return;
  dwfl_report_begin(dwfl_);
  // Bias 0: the module's addresses are the file's virtual addresses.
  module_ = dwfl_report_elf(dwfl_, path.c_str(), path.c_str(), -1, 0, false);
  dwfl_report_end(dwfl_, nullptr, nullptr);
}

ObjectSymbols::~ObjectSymbols() {
  if (dwfl_ != nullptr) dwfl_end(dwfl_);
}

std::optional<SymbolHit> ObjectSymbols::lookup(uint64_t address) const {
  if (module_ == nullptr) return std::nullopt;
  GElf_Off offset = 0;
  GElf_Sym symbol;
  const char* name = dwfl_module_addrinfo(module_, address, &offset, &symbol, nullptr, nullptr, nullptr);
  if (name != nullptr && *name != '\0') return SymbolHit{name, address - offset, true};
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
    return SymbolHit{"", start + bias, false};
  }
  return std::nullopt;
}

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> plain(abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), std::free);
  return status == 0 && plain ? std::string(plain.get()) : name;
}

}  // namespace lumen::analysis
