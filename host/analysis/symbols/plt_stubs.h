// The PLT stubs of a load object, named after the functions they jump to
// ("clock_gettime@plt"). The sections are found once, at the first lookup,
// not at every PC: an object has a few .plt sections and tens of others.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "object_symbols.h"

struct Elf;
struct Elf_Scn;

namespace lumen::analysis {

class PltStubs {
 public:
  // `elf` (the module's main file, mapped at `bias`) outlives this.
  PltStubs(Elf* elf, uint64_t bias);

  // The stub holding `address`; nullopt when no .plt or .plt.sec does, or
  // its relocation names no function.
  std::optional<SymbolHit> at(uint64_t address) const;

 private:
  struct StubSection {
    uint64_t start;
    uint64_t size;
    bool secondary;  // .plt.sec: no resolver stub first
  };

  Elf* elf_ = nullptr;
  Elf_Scn* relocations_ = nullptr;      // .rela.plt
  std::vector<StubSection> sections_;  // in file order: the last holding an address is the one
};

}  // namespace lumen::analysis
