// Which symbol of a load object holds an address, answered exactly as
// dwfl_module_addrinfo answers it, by binary search over the object's
// symbols sorted once: libdwfl reads every symbol at every call (about
// 200 us for libc's 10,000 symbols), which a profile with a million
// distinct PCs cannot pay.
//
// Memory: 32 bytes per symbol libdwfl would consider (40 with a size;
// names stay in libelf's string tables) and 24 per allocated section, read
// only for an object a PC was looked up in: at most about twice its symbol
// tables in the file (24 bytes a symbol).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

struct Dwfl_Module;

namespace lumen::analysis {

class SymbolIndex {
 public:
  struct Symbol {
    const char* name;  // in the module's string table: lives as long as the module
    uint64_t start;
    uint64_t size;  // 0: a symbol without size (an assembly label)
  };

  // Reads the module's symbols (its symbol table, or the separate debug
  // file's, and .gnu_debugdata's); `sorted` false reads none and asks
  // libdwfl every time (the reference the index is tested against).
  SymbolIndex(Dwfl_Module* module, bool sorted);

  // The named symbol dwfl_module_addrinfo gives for `address`; nullopt when
  // it gives none.
  std::optional<Symbol> at(uint64_t address) const;

 private:
  struct Entry {
    uint64_t value;
    uint64_t size;
    const char* name;
    uint32_t index;       // in libdwfl's order, which decides between equals
    uint8_t binding;      // libdwfl's preference: global 3, weak 2, local 1, other 0
    bool matches_exactly;  // an absolute or non-allocated symbol: only at its own address
  };
  struct Section {
    uint64_t start;
    uint64_t end;
    uint32_t index;  // ELF section index
  };

  std::optional<Symbol> search(uint64_t address) const;
  bool in_local_pass(const Entry& entry) const { return entry.index < first_global_; }
  // libdwfl's section of an address (its find_section), 0 when none holds it.
  uint32_t section_of(uint64_t address) const;
  bool same_section(const Entry& sizeless, uint64_t address) const;
  // libdwfl's fallback when no symbol with a size holds the address.
  std::optional<Symbol> label_below(uint64_t address) const;

  Dwfl_Module* module_;
  // False when libdwfl's answers could differ from the table's (a
  // relocatable object, function descriptors, ARM's Thumb bit): ask it.
  bool usable_ = false;
  uint32_t first_global_ = 0;  // symbols below it are searched after the others, if at all
  std::vector<Entry> sized_;    // by value
  std::vector<uint64_t> end_before_;  // max(value + size) over sized_[0..i], saturated
  std::vector<Entry> sizeless_;  // by value, then index
  std::vector<Section> sections_;  // as libdwfl sorts them
};

}  // namespace lumen::analysis
