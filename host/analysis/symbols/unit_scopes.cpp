#include "unit_scopes.h"

#include <dwarf.h>

#include <algorithm>

namespace lumen::analysis {

namespace {

// The tags libdw's scope walk descends into (may_have_scopes).
bool may_own_scopes(int tag) {
  switch (tag) {
    case DW_TAG_compile_unit:
    case DW_TAG_module:
    case DW_TAG_lexical_block:
    case DW_TAG_with_stmt:
    case DW_TAG_catch_block:
    case DW_TAG_try_block:
    case DW_TAG_entry_point:
    case DW_TAG_inlined_subroutine:
    case DW_TAG_subprogram:
    case DW_TAG_namespace:
    case DW_TAG_class_type:
    case DW_TAG_structure_type:
      return true;
    default:
      return false;
  }
}

// Deeper than this, or more DIEs than that, and the unit is left to libdw:
// the walk reads every scope once, and a crafted unit could nest or import
// without end.
constexpr int kMaxDepth = 1024;
constexpr size_t kMaxDies = size_t{1} << 24;

}  // namespace

// libdw's walk (walk_children), without its pruning: every child of every
// scope a path could pass through.
class UnitScopes::Walk {
 public:
  explicit Walk(UnitScopes& scopes) : scopes_(scopes) {}

  // Fills `scope`'s children; false on any error.
  bool children(Dwarf_Die* parent, uint32_t scope, int depth) {
    if (depth > kMaxDepth) return false;
    Dwarf_Die child;
    const int found = dwarf_child(parent, &child);
    if (found != 0) return found > 0;
    std::vector<Range> level;
    uint32_t order = 0;
    if (!siblings(child, level, order, depth)) return false;
    std::sort(level.begin(), level.end(), [](const Range& a, const Range& b) { return a.low < b.low; });
    uint64_t furthest = 0;
    for (Range& range : level) range.furthest = furthest = std::max(furthest, range.high);
    scopes_.scopes_[scope].first_child = static_cast<uint32_t>(scopes_.ranges_.size());
    scopes_.ranges_.insert(scopes_.ranges_.end(), level.begin(), level.end());
    scopes_.scopes_[scope].end_child = static_cast<uint32_t>(scopes_.ranges_.size());
    return true;
  }

 private:
  struct Import {
    void* die;  // the DW_TAG_imported_unit DIE
    const Import* outer;
  };

  // `child` and its siblings, an imported unit's children in its place.
  bool siblings(Dwarf_Die child, std::vector<Range>& level, uint32_t& order, int depth) {
    int next = 0;
    do {
      while (dwarf_tag(&child) == DW_TAG_imported_unit) {
        const Dwarf_Die import = child;
        Dwarf_Attribute attribute;
        Dwarf_Die unit, first;
        if (dwarf_formref_die(dwarf_attr(&child, DW_AT_import, &attribute), &unit) != nullptr &&
            dwarf_tag(&unit) != DW_TAG_compile_unit && dwarf_child(&unit, &first) == 0) {
          for (const Import* outer = imports_; outer != nullptr; outer = outer->outer)
            if (outer->die == import.addr) return false;  // a cycle: libdw fails
          const Import here{import.addr, imports_};
          imports_ = &here;
          const bool read = siblings(first, level, order, depth);
          imports_ = here.outer;
          if (!read) return false;
        }
        Dwarf_Die after_import = import;
        if ((next = dwarf_siblingof(&after_import, &child)) != 0) return next > 0;
      }
      if (!visit(child, level, order++, depth)) return false;
    } while ((next = dwarf_siblingof(&child, &child)) == 0);
    return next > 0;
  }

  bool visit(Dwarf_Die& child, std::vector<Range>& level, uint32_t order, int depth) {
    if (++dies_ > kMaxDies) return false;
    const size_t first = level.size();
    Dwarf_Addr base = 0, low = 0, high = 0;
    ptrdiff_t next = 0;
    while ((next = dwarf_ranges(&child, next, &base, &low, &high)) > 0)
      if (low < high) level.push_back({low, high, 0, order, 0});
    if (next < 0) return false;
    if (level.size() == first) return true;  // never holds an address: never on a path
    const uint32_t scope = static_cast<uint32_t>(scopes_.scopes_.size());
    const int tag = dwarf_tag(&child);
    scopes_.scopes_.push_back({0, 0, tag == DW_TAG_inlined_subroutine});
    for (size_t i = first; i < level.size(); ++i) level[i].scope = scope;
    if (!may_own_scopes(tag)) return true;
    const int has_children = dwarf_haschildren(&child);
    return has_children == 0 || (has_children > 0 && children(&child, scope, depth + 1));
  }

  UnitScopes& scopes_;
  const Import* imports_ = nullptr;
  size_t dies_ = 0;
};

UnitScopes::UnitScopes(Dwarf_Die unit) {
  scopes_.push_back({});
  regular_ = Walk(*this).children(&unit, 0, 0);
  if (!regular_) {
    scopes_.clear();
    ranges_.clear();
  }
  scopes_.shrink_to_fit();
  ranges_.shrink_to_fit();
}

std::optional<uint32_t> UnitScopes::innermost_inlined(uint64_t address) const {
  std::optional<uint32_t> inlined;
  for (uint32_t scope = 0;;) {
    // The first child (in DIE order) holding the address, among those
    // starting at or below it that some range so far may reach it from.
    const auto begin = ranges_.begin() + scopes_[scope].first_child;
    auto range = std::upper_bound(begin, ranges_.begin() + scopes_[scope].end_child, address,
                                  [](uint64_t at, const Range& r) { return at < r.low; });
    const Range* first = nullptr;
    for (; range != begin && std::prev(range)->furthest > address; --range) {
      const Range& r = *std::prev(range);
      if (address < r.high && (first == nullptr || r.order < first->order)) first = &r;
    }
    if (first == nullptr) return inlined;
    scope = first->scope;
    if (scopes_[scope].inlined) inlined = scope;
  }
}

size_t UnitScopes::bytes() const {
  return sizeof(*this) + scopes_.capacity() * sizeof(Scope) + ranges_.capacity() * sizeof(Range);
}

}  // namespace lumen::analysis
