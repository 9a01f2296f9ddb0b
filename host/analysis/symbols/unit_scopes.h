// The scopes of one compile unit as dwarf_getscopes walks them, read once:
// which inlined instance holds an address is then a binary search at each
// depth, where libdw reads every DIE before the one that holds it (and, for
// an inlined instance, searches the unit again for its abstract origin) at
// every address.
//
// dwarf_getscopes takes, at each depth, the first child (in DIE order, the
// children of imported partial units in place of their import) whose
// ranges hold the address, and descends into it when its tag may own
// scopes. What it answers depends only on the innermost inlined instance on
// that path (and, for the other scopes, on nothing inline_chain reports):
// callers ask libdw once per such instance. A unit whose walk meets any
// error (a bad range list, an import cycle, a DIE that cannot be read) is
// left to dwarf_getscopes for every address.
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

  // False: the walk met an error; ask dwarf_getscopes.
  bool regular() const { return regular_; }
  // The innermost inlined instance dwarf_getscopes would meet at
  // `address` (the unit's DWARF address), as an id within this unit;
  // nullopt when it meets none.
  std::optional<uint32_t> innermost_inlined(uint64_t address) const;
  // Bytes held, for the caller's bound.
  size_t bytes() const;

 private:
  struct Scope {
    uint32_t first_child = 0;  // its children's ranges: ranges_[first_child, end_child)
    uint32_t end_child = 0;
    bool inlined = false;
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

}  // namespace lumen::analysis
