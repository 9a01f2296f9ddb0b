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

// Those that hold no code of their own: without ranges, their children
// stand in their place.
bool only_holds_others(int tag) {
  switch (tag) {
    case DW_TAG_namespace:
    case DW_TAG_module:
    case DW_TAG_class_type:
    case DW_TAG_structure_type:
    case DW_TAG_union_type:
    case DW_TAG_interface_type:
      return true;
    default:
      return false;
  }
}

// Deeper than this, or more DIEs than that, and the unit is left
// irregular: the walk reads every scope once, and a crafted unit could nest
// or import without end.
constexpr int kMaxDepth = 1024;
constexpr size_t kMaxDies = size_t{1} << 24;

// The partial unit a DW_TAG_imported_unit brings in; false when it brings
// none in (an import of a whole compile unit is not followed).
bool imported_unit(Dwarf_Die* import, Dwarf_Die* unit) {
  Dwarf_Attribute attribute;
  return dwarf_formref_die(dwarf_attr(import, DW_AT_import, &attribute), unit) != nullptr &&
         dwarf_tag(unit) != DW_TAG_compile_unit;
}

}  // namespace

// Every child of every scope a path could pass through.
class UnitScopes::Walk {
 public:
  explicit Walk(UnitScopes& scopes) : scopes_(scopes) {}

  // Fills `scope`'s children; false on any error.
  bool children(Dwarf_Die* parent, uint32_t scope, int depth) {
    std::vector<Range> level;
    uint32_t order = 0;
    if (!add_children(parent, scope, level, order, depth)) return false;
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

  // The children of `parent` into `level` as children of `scope`: an
  // imported unit's, and those of a DIE holding only others, in its place.
  bool add_children(Dwarf_Die* parent, uint32_t scope, std::vector<Range>& level, uint32_t& order, int depth) {
    if (depth > kMaxDepth) return false;
    Dwarf_Die child;
    int next = dwarf_child(parent, &child);
    if (next != 0) return next > 0;
    do {
      if (++dies_ > kMaxDies) return false;
      if (dwarf_tag(&child) == DW_TAG_imported_unit) {
        Dwarf_Die unit;
        if (!imported_unit(&child, &unit)) continue;
        for (const Import* outer = imports_; outer != nullptr; outer = outer->outer)
          if (outer->die == child.addr) return false;  // a cycle: libdw fails
        const Import here{child.addr, imports_};
        imports_ = &here;
        const bool read = add_children(&unit, scope, level, order, depth + 1);
        imports_ = here.outer;
        if (!read) return false;
      } else if (!visit(child, scope, level, order, depth)) {
        return false;
      }
    } while ((next = dwarf_siblingof(&child, &child)) == 0);
    return next > 0;
  }

  bool visit(Dwarf_Die& child, uint32_t parent, std::vector<Range>& level, uint32_t& order, int depth) {
    const size_t first = level.size();
    const uint32_t place = order++;
    Dwarf_Addr base = 0, low = 0, high = 0;
    ptrdiff_t next = 0;
    while ((next = dwarf_ranges(&child, next, &base, &low, &high)) > 0)
      if (low < high) level.push_back({low, high, 0, place, 0});
    if (next < 0) return false;
    const int tag = dwarf_tag(&child);
    if (level.size() == first)  // never on a path itself
      return !only_holds_others(tag) || dwarf_haschildren(&child) <= 0 ||
             add_children(&child, parent, level, order, depth + 1);
    const uint32_t scope = static_cast<uint32_t>(scopes_.scopes_.size());
    scopes_.scopes_.push_back({0, 0, parent, static_cast<uint16_t>(tag), child.addr, child.cu});
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

std::optional<uint32_t> UnitScopes::innermost(uint64_t address) const {
  if (!regular_) return std::nullopt;
  std::optional<uint32_t> found;
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
    if (first == nullptr) return found;
    found = scope = first->scope;
  }
}

Dwarf_Die UnitScopes::die(uint32_t scope) const {
  Dwarf_Die die{};
  die.addr = scopes_[scope].die_address;
  die.cu = scopes_[scope].die_unit;
  return die;
}

size_t UnitScopes::bytes() const {
  return sizeof(*this) + scopes_.capacity() * sizeof(Scope) + ranges_.capacity() * sizeof(Range);
}

namespace {

// The path below `parent` to the scope holding `address`, appended
// outermost first: 1 found, 0 not, -1 an error.
int walk_to(Dwarf_Die* parent, uint64_t address, std::vector<Dwarf_Die>& path, std::vector<void*>& imports, int depth) {
  if (depth > kMaxDepth) return -1;
  Dwarf_Die child;
  int next = dwarf_child(parent, &child);
  if (next != 0) return next > 0 ? 0 : -1;
  do {
    const int tag = dwarf_tag(&child);
    if (tag == DW_TAG_imported_unit) {
      Dwarf_Die unit;
      if (!imported_unit(&child, &unit)) continue;
      if (std::find(imports.begin(), imports.end(), child.addr) != imports.end()) return -1;
      imports.push_back(child.addr);
      const int found = walk_to(&unit, address, path, imports, depth + 1);
      imports.pop_back();
      if (found != 0) return found;
      continue;
    }
    bool any = false, holds = false;
    Dwarf_Addr base = 0, low = 0, high = 0;
    ptrdiff_t at = 0;
    while ((at = dwarf_ranges(&child, at, &base, &low, &high)) > 0)
      if (low < high) {
        any = true;
        holds = holds || (address >= low && address < high);
      }
    if (at < 0) return -1;
    if (holds) {
      path.push_back(child);
      if (!may_own_scopes(tag) || dwarf_haschildren(&child) <= 0) return 1;
      return walk_to(&child, address, path, imports, depth + 1) < 0 ? -1 : 1;
    }
    if (!any && only_holds_others(tag) && dwarf_haschildren(&child) > 0) {
      const int found = walk_to(&child, address, path, imports, depth + 1);
      if (found != 0) return found;
    }
  } while ((next = dwarf_siblingof(&child, &child)) == 0);
  return next > 0 ? 0 : -1;
}

}  // namespace

std::vector<Dwarf_Die> scopes_by_walk(Dwarf_Die unit, uint64_t address) {
  std::vector<Dwarf_Die> path;
  std::vector<void*> imports;
  if (walk_to(&unit, address, path, imports, 0) <= 0) return {};
  std::reverse(path.begin(), path.end());
  return path;
}

}  // namespace lumen::analysis
