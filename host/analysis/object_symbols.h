// Symbols of one load object through elfutils (ELF symbol tables, separate
// debug files found by build-id or debuglink, and .eh_frame for the extent
// of functions that have no symbol). Addresses are the file's own virtual
// addresses (a PC minus the object's load bias).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

struct Dwfl;
struct Dwfl_Module;

namespace lumen::analysis {

struct SymbolHit {
  std::string name;  // as in the symbol table (mangled)
  uint64_t start = 0;
  bool from_symbol_table = true;  // false: only the CFI extent is known
};

class ObjectSymbols {
 public:
  explicit ObjectSymbols(const std::string& path);
  ~ObjectSymbols();
  ObjectSymbols(const ObjectSymbols&) = delete;
  ObjectSymbols& operator=(const ObjectSymbols&) = delete;

  bool opened() const { return module_ != nullptr; }
  std::optional<SymbolHit> lookup(uint64_t address) const;

 private:
  Dwfl* dwfl_ = nullptr;
  Dwfl_Module* module_ = nullptr;
};

// "_ZN3foo3barEv" -> "foo::bar()"; other names unchanged.
std::string demangle(const std::string& name);

}  // namespace lumen::analysis
