// Symbols of one load object through elfutils (ELF symbol tables, separate
// debug files found by build-id or debuglink, and .eh_frame for the extent
// of functions that have no symbol). Addresses are the file's own virtual
// addresses (a PC minus the object's load bias).
#pragma once

#include <cstdint>
#include <compare>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

struct Dwfl;
struct Dwfl_Module;

namespace lumen::analysis {

class InlineChains;
class PltStubs;
class SymbolIndex;

struct SymbolHit {
  std::string name;  // as in the symbol table (mangled)
  uint64_t start = 0;
  uint64_t size = 0;  // 0 when unknown
  bool from_symbol_table = true;  // false: only the CFI extent is known
};

struct SourceLine {
  std::string file;  // as DWARF names it (absolute or relative to the compile directory)
  int line = 0;
  auto operator<=>(const SourceLine&) const = default;
};

// A function inlined at an address: its name as the symbol table would
// have it (the linkage name where DWARF has one), where its caller
// inlined it, and the file holding its definition (where DWARF names none,
// that of its lines here; "" when unknown).
struct InlinedCall {
  std::string name;
  SourceLine call_site;  // line 0 when DWARF does not say
  std::string defining_file;
};

// A compile unit's address range, for objects without .debug_aranges
// (clang does not write it), where libdw 0.188 finds no unit by address.
struct CompileUnitRange {
  uint64_t low = 0;
  uint64_t high = 0;  // one past the end
  uint64_t unit_offset = 0;
};

// How addresses are looked up: in tables read once per object (sorted
// symbols, each compile unit's scopes, source paths made whole), or by
// asking libdwfl and libdw every time (and walking the unit's DIEs to the
// address for its scopes), which reads every symbol and every DIE before
// the address: the reference the tables are tested against.
enum class Lookups { Tables, Libdwfl };

class ObjectSymbols {
 public:
  explicit ObjectSymbols(const std::string& path, Lookups lookups = Lookups::Tables);
  ~ObjectSymbols();
  ObjectSymbols(const ObjectSymbols&) = delete;
  ObjectSymbols& operator=(const ObjectSymbols&) = delete;

  bool opened() const { return module_ != nullptr; }
  std::optional<SymbolHit> lookup(uint64_t address) const;
  // The source line of the instruction at `address` (DWARF line table).
  std::optional<SourceLine> source_line(uint64_t address) const;
  // Every function symbol whose value is `start` (aliases), sorted.
  std::vector<std::string> names_at(uint64_t start) const;
  // The one function symbol named `name` (the version after '@' aside);
  // nullopt when none or several are.
  std::optional<SymbolHit> function_named(const std::string& name) const;
  // The address of the function this object defines and exports as
  // `name` (a global or weak symbol), if any.
  std::optional<uint64_t> exported_function(const std::string& name) const;
  // Up to `size` bytes of the object's code at `address`; fewer at the end
  // of its section, none when no loaded section holds it.
  std::vector<uint8_t> code_bytes(uint64_t address, uint64_t size) const;
  // The functions inlined at `address` (DWARF inlined subroutines, each
  // instance enclosing the innermost), the innermost first, without the
  // function that holds them.
  std::vector<InlinedCall> inline_chain(uint64_t address) const;
  // The source file holding the definition of the function (not inlined)
  // whose code holds `address`: DW_AT_decl_file of its subprogram.
  std::optional<std::string> defining_file(uint64_t address) const;
  // The object's ELF machine (EM_X86_64, ...), 0 when unknown.
  int machine() const;

 private:
  std::string source_file(const char* recorded, const char* compile_dir) const;

  const Lookups lookups_;
  Dwfl* dwfl_ = nullptr;
  Dwfl_Module* module_ = nullptr;
  mutable std::optional<std::unordered_map<std::string, uint64_t>> exported_;  // read at the first lookup
  mutable std::optional<std::unordered_map<std::string, std::optional<SymbolHit>>> by_name_;  // nullopt: several
  mutable std::optional<std::vector<CompileUnitRange>> unit_ranges_;          // read at the first miss
  // Read at the first lookup of each kind; each says what bounds it.
  mutable std::unique_ptr<PltStubs> plt_stubs_;
  mutable std::unique_ptr<SymbolIndex> symbol_index_;
  mutable std::unique_ptr<InlineChains> inline_chains_;
  // Source paths as the line tables record them (libdw's strings, which
  // live as long as the module) and their compile directory, made whole:
  // one per file entry of the line tables read.
  mutable std::map<std::pair<const char*, const char*>, std::string> source_files_;
};

// "_ZN3foo3barEv" -> "foo::bar()", gfortran's "__kernels_MOD_smooth" ->
// "kernels::smooth"; other names unchanged.
std::string demangle(const std::string& name);

}  // namespace lumen::analysis
