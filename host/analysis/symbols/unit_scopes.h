// The scopes of one compile unit that hold code (functions, inlined
// instances, lexical blocks), read once: which scope holds an address is
// then a binary search at each depth, where a walk of the DIE tree reads
// every DIE before the one that holds it at every address.
//
// At each depth the scope holding an address is the first child (in DIE
// order) whose ranges hold it, as dwarf_getscopes chooses; the children of
// an imported partial unit stand in place of the import, and those of a
// namespace, class, structure or union (which hold no code of their own)
// in place of it: clang defines a namespace's functions inside the
// namespace's DIE, where dwarf_getscopes (elfutils 0.188) never looks.
// A unit whose walk meets any error (a bad range list, an import cycle, a
// DIE that cannot be read) is not regular, and has no scopes.
#pragma once

#include <elfutils/libdw.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace lumen::analysis {

class UnitScopes {
 public:
  explicit UnitScopes(Dwarf_Die unit);

  bool regular() const { return regular_; }
  // The innermost scope holding `address` (the unit's DWARF address), as
  // an id within this unit; nullopt when no scope of the unit holds it.
  std::optional<uint32_t> innermost(uint64_t address) const;
  // The scope enclosing `scope`; nullopt for the outermost.
  std::optional<uint32_t> enclosing(uint32_t scope) const {
    return scopes_[scope].parent == 0 ? std::nullopt : std::optional<uint32_t>(scopes_[scope].parent);
  }
  int tag(uint32_t scope) const { return scopes_[scope].tag; }
  Dwarf_Die die(uint32_t scope) const;
  // Bytes held, for the caller's bound.
  size_t bytes() const;

 private:
  struct Scope {
    uint32_t first_child = 0;  // its children's ranges: ranges_[first_child, end_child)
    uint32_t end_child = 0;
    uint32_t parent = 0;  // 0: the unit
    uint16_t tag = 0;
    void* die_address = nullptr;  // the DIE (Dwarf_Die.addr, .cu)
    Dwarf_CU* die_unit = nullptr;
  };
  struct Range {
    uint64_t low;
    uint64_t high;
    uint64_t furthest;  // the highest `high` among its parent's ranges up to this one
    uint32_t order;     // the child's place among its parent's children
    uint32_t scope;     // the child
  };

  class Walk;

  bool regular_ = true;
  std::vector<Scope> scopes_;  // [0]: the unit
  std::vector<Range> ranges_;
};

// The scopes holding `address` of `unit` as UnitScopes places them, found by
// walking the DIE tree for this one address (no table): innermost first,
// the unit left out. Empty when none holds it or the walk meets an error.
std::vector<Dwarf_Die> scopes_by_walk(Dwarf_Die unit, uint64_t address);

}  // namespace lumen::analysis
