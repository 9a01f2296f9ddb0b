#include "symbol_index.h"

#include <elfutils/libdwfl.h>
#include <gelf.h>

#include <algorithm>
#include <limits>
#include <tuple>

namespace lumen::analysis {

// The search below is elfutils 0.188's __libdwfl_addrsym, restated over
// sorted symbols. libdwfl goes through the global symbols, then (when none
// with a size holds the address, and no global label is at exactly the
// address) the local ones; among the symbols with a size that hold the
// address it keeps, in table order, one that starts later or binds more
// strongly, or at the same start is smaller and binds no less strongly.
// Failing those, a label (a symbol without size) in the address's section,
// when nothing it saw at or below the address ends past the label: of those
// at that end, the last it came to.

namespace {

uint8_t binding_preference(const GElf_Sym& symbol) {
  switch (GELF_ST_BIND(symbol.st_info)) {
    case STB_GLOBAL: return 3;
    case STB_WEAK: return 2;
    case STB_LOCAL: return 1;
    default: return 0;
  }
}

// Orders entries by value, against an address.
struct ValueOrder {
  template <class Entry>
  bool operator()(const Entry& entry, uint64_t at) const { return entry.value < at; }
  template <class Entry>
  bool operator()(uint64_t at, const Entry& entry) const { return at < entry.value; }
};

uint64_t saturated_end(uint64_t value, uint64_t size) {
  return value + size < value ? std::numeric_limits<uint64_t>::max() : value + size;
}

}  // namespace

SymbolIndex::SymbolIndex(Dwfl_Module* module, bool sorted) : module_(module) {
  if (!sorted) return;
  GElf_Addr main_bias = 0;
  Elf* main_elf = dwfl_module_getelf(module, &main_bias);
  GElf_Ehdr header;
  if (main_elf == nullptr || gelf_getehdr(main_elf, &header) == nullptr || header.e_type == ET_REL) return;
  const int count = dwfl_module_getsymtab(module);
  const int first_global = dwfl_module_getsymtab_first_global(module);
  usable_ = true;
  if (count < 0 || first_global < 0) return;  // libdwfl finds no symbol either
  first_global_ = static_cast<uint32_t>(first_global);
  for (int i = 1; i < count; ++i) {
    GElf_Sym symbol;
    GElf_Addr value = 0;
    GElf_Word section = 0;
    const char* name = dwfl_module_getsym_info(module, i, &symbol, &value, &section, nullptr, nullptr);
    if (name == nullptr || *name == '\0' || symbol.st_shndx == SHN_UNDEF) continue;
    const int type = GELF_ST_TYPE(symbol.st_info);
    if (type == STT_SECTION || type == STT_FILE || type == STT_TLS) continue;
    // A value libdwfl resolved (a function descriptor) or masked (ARM's
    // Thumb bit) is matched in two ways there: leave such objects to it.
    GElf_Sym adjusted;
    if (dwfl_module_getsym(module, i, &adjusted, nullptr) == nullptr || adjusted.st_value != value) {
      usable_ = false;
      sized_.clear();
      sizeless_.clear();
      return;
    }
    const Entry entry{value, symbol.st_size, name, static_cast<uint32_t>(i), binding_preference(symbol),
                      section >= SHN_LORESERVE};
    (entry.size != 0 ? sized_ : sizeless_).push_back(entry);
  }
  std::stable_sort(sized_.begin(), sized_.end(), [](const Entry& a, const Entry& b) { return a.value < b.value; });
  std::sort(sizeless_.begin(), sizeless_.end(),
            [](const Entry& a, const Entry& b) { return std::tie(a.value, a.index) < std::tie(b.value, b.index); });
  end_before_.reserve(sized_.size());
  uint64_t furthest = 0;
  for (const Entry& entry : sized_)
    end_before_.push_back(furthest = std::max(furthest, saturated_end(entry.value, entry.size)));

  // The allocated sections, as libdwfl's cache_sections lists them; none
  // when it fails to (every address is then in its "no section").
  size_t names = 0;
  if (elf_getshdrstrndx(main_elf, &names) != 0) return;
  for (Elf_Scn* scn = elf_nextscn(main_elf, nullptr); scn != nullptr; scn = elf_nextscn(main_elf, scn)) {
    GElf_Shdr section;
    if (gelf_getshdr(scn, &section) == nullptr ||
        ((section.sh_flags & SHF_ALLOC) && elf_strptr(main_elf, names, section.sh_name) == nullptr)) {
      sections_.clear();
      return;
    }
    if (section.sh_flags & SHF_ALLOC) {
      const uint64_t start = section.sh_addr + main_bias;
      sections_.push_back({start, start + section.sh_size, static_cast<uint32_t>(elf_ndxscn(scn))});
    }
  }
  std::sort(sections_.begin(), sections_.end(), [](const Section& a, const Section& b) {
    return std::tie(a.start, a.end, a.index) < std::tie(b.start, b.end, b.index);
  });
}

std::optional<SymbolIndex::Symbol> SymbolIndex::at(uint64_t address) const {
  // The last address is left to libdwfl: saturated ends cannot tell
  // whether a symbol reaching past it holds it.
  if (usable_ && address != std::numeric_limits<uint64_t>::max()) return search(address);
  GElf_Off offset = 0;
  GElf_Sym symbol;
  const char* name = dwfl_module_addrinfo(module_, address, &offset, &symbol, nullptr, nullptr, nullptr);
  if (name == nullptr) return std::nullopt;
  return Symbol{name, address - offset, symbol.st_size};
}

std::optional<SymbolIndex::Symbol> SymbolIndex::search(uint64_t address) const {
  // The symbols with a size that hold the address: from the last one that
  // starts at or below it, down while an earlier one may still reach it.
  const auto after = std::upper_bound(sized_.begin(), sized_.end(), address, ValueOrder{});
  std::vector<const Entry*> holding;
  for (size_t i = static_cast<size_t>(after - sized_.begin()); i > 0 && end_before_[i - 1] > address; --i)
    if (address - sized_[i - 1].value < sized_[i - 1].size) holding.push_back(&sized_[i - 1]);
  std::sort(holding.begin(), holding.end(), [](const Entry* a, const Entry* b) { return a->index < b->index; });
  const auto closest = [&](bool local) -> const Entry* {
    const Entry* kept = nullptr;
    for (const Entry* entry : holding) {
      if (in_local_pass(*entry) != local) continue;
      if (kept == nullptr || kept->value < entry->value || kept->binding < entry->binding ||
          (kept->value == entry->value && kept->size > entry->size && kept->binding <= entry->binding))
        kept = entry;
    }
    return kept;
  };
  if (const Entry* global = closest(false)) return Symbol{global->name, global->value, global->size};
  const auto labels_here = std::equal_range(sizeless_.begin(), sizeless_.end(), address, ValueOrder{});
  const bool global_label_here =
      std::any_of(labels_here.first, labels_here.second, [&](const Entry& label) { return !in_local_pass(label); });
  if (global_label_here) {
    // libdwfl searches no further: the last global label there.
    const Entry& label = *std::prev(labels_here.second);
    return Symbol{label.name, label.value, 0};
  }
  if (const Entry* local = closest(true)) return Symbol{local->name, local->value, local->size};
  return label_below(address);
}

std::optional<SymbolIndex::Symbol> SymbolIndex::label_below(uint64_t address) const {
  // Nothing seen holds the address, so everything seen ends at or below
  // it; a label counts only at the furthest end.
  uint64_t furthest = 0;
  const auto sized_after = std::upper_bound(sized_.begin(), sized_.end(), address, ValueOrder{});
  if (sized_after != sized_.begin()) furthest = end_before_[static_cast<size_t>(sized_after - sized_.begin()) - 1];
  const auto labels_after = std::upper_bound(sizeless_.begin(), sizeless_.end(), address, ValueOrder{});
  if (labels_after != sizeless_.begin()) furthest = std::max(furthest, std::prev(labels_after)->value);
  // The last libdwfl comes to: the locals after the globals, each in order.
  const Entry* last_global = nullptr;
  const Entry* last_local = nullptr;
  const auto there = std::equal_range(sizeless_.begin(), sizeless_.end(), furthest, ValueOrder{});
  for (auto label = there.first; label != there.second; ++label) {
    if (!same_section(*label, address)) continue;
    (in_local_pass(*label) ? last_local : last_global) = &*label;
  }
  const Entry* chosen = last_local != nullptr ? last_local : last_global;
  if (chosen == nullptr) return std::nullopt;
  return Symbol{chosen->name, chosen->value, 0};
}

bool SymbolIndex::same_section(const Entry& label, uint64_t address) const {
  if (label.matches_exactly) return label.value == address;
  return section_of(label.value) == section_of(address);
}

uint32_t SymbolIndex::section_of(uint64_t address) const {
  // libdwfl's find_section, step for step: a section's end is in it
  // unless the next section starts there.
  size_t low = 0, high = sections_.size();
  while (low < high) {
    size_t i = (low + high) / 2;
    if (address < sections_[i].start) {
      high = i;
    } else if (address > sections_[i].end) {
      low = i + 1;
    } else {
      if (address == sections_[i].end && i + 1 < sections_.size() && address == sections_[i + 1].start) ++i;
      return sections_[i].index;
    }
  }
  return SHN_UNDEF;
}

}  // namespace lumen::analysis
