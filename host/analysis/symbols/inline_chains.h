// The functions inlined at an address of one load object, innermost first,
// as the symbol table would name them (the linkage name where DWARF has
// one), each with the place it was inlined at: every inlined instance on
// the path of scopes to the address (unit_scopes.h), not only the
// innermost (dwarf_getscopes gives that instance and then its abstract
// definition's scopes). Each compile unit's scopes are read once, and the
// chain of each innermost instance met once.
//
// Memory: the units' scope tables and the chains found in them are kept
// up to a budget per object, the least recently used unit dropped past it
// (and read again if asked again). A unit's tables take about 60 bytes per
// DIE with an address range (all of libc's units: 2 MB), so only objects
// with hundreds of megabytes of DWARF reach the budget.
#pragma once

#include <elfutils/libdw.h>

#include <cstddef>
#include <compare>
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

#include "unit_scopes.h"

namespace lumen::analysis {

// One inlined instance: the function and where its caller inlined it.
// The strings other than the name are libdw's (they live as long as its
// Dwarf) and may be relative to `compile_dir`; nullptr when not recorded.
struct InlinedInstance {
  std::string name;
  const char* call_file = nullptr;
  int call_line = 0;
  const char* decl_file = nullptr;  // the file that holds its definition
  const char* compile_dir = nullptr;
  auto operator<=>(const InlinedInstance&) const = default;
};

using InlineChain = std::vector<InlinedInstance>;  // innermost first

class InlineChains {
 public:
  static constexpr size_t kDefaultBudget = size_t{64} << 20;
  explicit InlineChains(size_t budget_bytes = kDefaultBudget) : budget_(budget_bytes) {}

  // `address`: the unit's DWARF address.
  InlineChain at(Dwarf_Die unit, uint64_t address);
  // The file holding the definition of the function (not inlined) whose
  // code holds `address`; nullptr when DWARF does not say.
  const char* defining_file(Dwarf_Die unit, uint64_t address);

 private:
  struct Unit {
    explicit Unit(Dwarf_Die die) : scopes(die) {}
    UnitScopes scopes;
    std::unordered_map<uint32_t, InlineChain> chains;  // by innermost inlined instance
    std::list<uint64_t>::iterator recent;
  };

  Unit& unit(Dwarf_Die die);
  void drop_least_recent(uint64_t keep);

  size_t budget_;
  size_t bytes_ = 0;
  std::unordered_map<uint64_t, Unit> units_;  // by the unit DIE's offset
  std::list<uint64_t> recent_;                // the most recently asked first
};

// The same, found by walking the unit's DIEs for this one address
// (scopes_by_walk): what the tables are tested against.
InlineChain inline_chain_by_walk(Dwarf_Die unit, uint64_t address);
const char* defining_file_by_walk(Dwarf_Die unit, uint64_t address);

}  // namespace lumen::analysis
