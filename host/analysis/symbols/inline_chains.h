// The functions inlined at an address of one load object, innermost first,
// as the symbol table would name them (the linkage name where DWARF has
// one): what dwarf_getscopes finds there, asked of libdw once per inlined
// instance met, each compile unit's scopes read once (unit_scopes.h).
//
// Memory: the units' scope tables and the chains found in them are kept
// up to a budget per object, the least recently used unit dropped past it
// (and read again if asked again). A unit's tables take about 45 bytes per
// DIE with an address range (all of libc's units: 1.4 MB), so only objects
// with hundreds of megabytes of DWARF reach the budget.
#pragma once

#include <elfutils/libdw.h>

#include <cstddef>
#include <cstdint>
#include <list>
#include <string>
#include <unordered_map>
#include <vector>

#include "unit_scopes.h"

namespace lumen::analysis {

class InlineChains {
 public:
  static constexpr size_t kDefaultBudget = size_t{64} << 20;
  explicit InlineChains(size_t budget_bytes = kDefaultBudget) : budget_(budget_bytes) {}

  // `address`: the unit's DWARF address.
  std::vector<std::string> at(Dwarf_Die unit, uint64_t address);

 private:
  struct Unit {
    explicit Unit(Dwarf_Die die) : scopes(die) {}
    UnitScopes scopes;
    std::unordered_map<uint32_t, std::vector<std::string>> chains;  // by innermost inlined instance
    std::list<uint64_t>::iterator recent;
  };

  Unit& unit(Dwarf_Die die);
  void drop_least_recent(uint64_t keep);

  size_t budget_;
  size_t bytes_ = 0;
  std::unordered_map<uint64_t, Unit> units_;  // by the unit DIE's offset
  std::list<uint64_t> recent_;                // the most recently asked first
};

// What dwarf_getscopes finds at `address` of `unit`: its inlined
// subroutines, named.
std::vector<std::string> inline_chain_from_libdw(Dwarf_Die unit, uint64_t address);

}  // namespace lumen::analysis
