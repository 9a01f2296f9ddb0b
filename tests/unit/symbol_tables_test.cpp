// The symbolizer's tables (symbols sorted once, each compile unit's scopes
// read once, source paths made whole once) answer what libdwfl and libdw
// answer when asked every time (Lookups::Libdwfl): at both ends of every
// symbol and section and the bytes beside them, and at addresses spread
// over the object, in an object built by gcc (with .debug_aranges) and by
// clang (without), in libc (with its debug file where one is installed)
// and in this test's own executable (thousands of C++ symbols, aliases
// among them). Inline chains are those of symbolizers that read DWARF with
// code of their own (addr2line, llvm-symbolizer).
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "object_symbols.h"
#include "program_structure.h"
#include "regular_file.h"
#include "test_support.h"

namespace lumen::test {
namespace {

using analysis::Lookups;
using analysis::ObjectSymbols;
using analysis::SourceLine;
using analysis::SymbolHit;

std::string hex(uint64_t address) {
  char text[32];
  std::snprintf(text, sizeof text, "%#llx", static_cast<unsigned long long>(address));
  return text;
}

std::string describe(const std::optional<SymbolHit>& hit) {
  if (!hit) return "none";
  std::ostringstream text;
  text << hit->name << " at " << hex(hit->start) << " size " << hit->size << (hit->from_symbol_table ? "" : " (CFI)");
  return text.str();
}

std::string describe(const std::optional<SourceLine>& line) {
  return line ? line->file + ":" + std::to_string(line->line) : "none";
}

std::string describe(const std::vector<analysis::InlinedCall>& chain) {
  std::string text;
  for (const analysis::InlinedCall& call : chain)
    text += call.name + " (" + call.defining_file + ") at " + describe(std::optional(call.call_site)) + " < ";
  return text.empty() ? "none" : text;
}

// Where an object's symbols and sections start and end, as libdwfl reads
// them (the separate debug file's symbols included).
struct Boundaries {
  std::vector<uint64_t> function_starts;
  std::vector<uint64_t> symbol_ends;    // every symbol's start and end, other types too
  std::vector<std::pair<uint64_t, uint64_t>> sections;  // allocated: [start, end)
  std::vector<std::pair<uint64_t, uint64_t>> code;      // executable sections
};

char* g_debuginfo_path = nullptr;

Boundaries boundaries_of(const std::string& path) {
  static const Dwfl_Callbacks callbacks = {dwfl_build_id_find_elf, dwfl_standard_find_debuginfo,
                                           dwfl_offline_section_address, &g_debuginfo_path};
  Boundaries found;
  Dwfl* dwfl = dwfl_begin(&callbacks);
  dwfl_report_begin(dwfl);
  analysis::FileDescriptor fd = analysis::try_open_regular_file(path, analysis::Symlinks::Follow);
  Dwfl_Module* module = dwfl_report_elf(dwfl, path.c_str(), path.c_str(), fd.get(), 0, false);
  if (module != nullptr) fd.release();
  dwfl_report_end(dwfl, nullptr, nullptr);
  if (module != nullptr) {
    const int count = dwfl_module_getsymtab(module);
    for (int i = 1; i < count; ++i) {
      GElf_Sym symbol;
      GElf_Addr value = 0;
      if (dwfl_module_getsym_info(module, i, &symbol, &value, nullptr, nullptr, nullptr) == nullptr) continue;
      if (GELF_ST_TYPE(symbol.st_info) == STT_FUNC) found.function_starts.push_back(value);
      found.symbol_ends.push_back(value);
      found.symbol_ends.push_back(value + symbol.st_size);
    }
    GElf_Addr bias = 0;
    Elf* elf = dwfl_module_getelf(module, &bias);
    for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr header;
      if (gelf_getshdr(scn, &header) == nullptr || !(header.sh_flags & SHF_ALLOC) || header.sh_size == 0) continue;
      found.sections.push_back({header.sh_addr + bias, header.sh_addr + bias + header.sh_size});
      if (header.sh_flags & SHF_EXECINSTR) found.code.push_back(found.sections.back());
    }
  }
  dwfl_end(dwfl);
  for (auto* list : {&found.function_starts, &found.symbol_ends}) {
    std::sort(list->begin(), list->end());
    list->erase(std::unique(list->begin(), list->end()), list->end());
  }
  return found;
}

// At most `limit` of `all`, evenly chosen.
std::vector<uint64_t> evenly(const std::vector<uint64_t>& all, size_t limit) {
  if (all.size() <= limit) return all;
  std::vector<uint64_t> chosen;
  for (size_t i = 0; i < limit; ++i) chosen.push_back(all[i * all.size() / limit]);
  return chosen;
}

// `count` addresses evenly spread over `ranges` (every byte when they
// hold no more).
std::vector<uint64_t> spread(const std::vector<std::pair<uint64_t, uint64_t>>& ranges, size_t count) {
  uint64_t total = 0;
  for (const auto& [start, end] : ranges) total += end - start;
  std::vector<uint64_t> addresses;
  if (total == 0) return addresses;
  for (size_t i = 0; i < count && i < total; ++i) {
    uint64_t at = total > count ? static_cast<uint64_t>(static_cast<double>(total) / count * i) : i;
    for (const auto& [start, end] : ranges) {
      if (at < end - start) {
        addresses.push_back(start + at);
        break;
      }
      at -= end - start;
    }
  }
  return addresses;
}

struct Compared {
  size_t addresses = 0;
  std::set<std::string> names;  // of the functions found
  size_t lines = 0;             // addresses with a source line
  size_t inlined = 0;           // addresses with inlined functions
};

class SymbolTables {
 public:
  explicit SymbolTables(const std::string& path) : tables_(path), libdwfl_(path, Lookups::Libdwfl) {}

  bool opened() const { return tables_.opened() && libdwfl_.opened(); }

  void function_at(uint64_t address) {
    const auto hit = tables_.lookup(address);
    EXPECT_EQ(describe(hit), describe(libdwfl_.lookup(address))) << "function at " << hex(address);
    ++compared_.addresses;
    if (hit) compared_.names.insert(hit->name);
  }
  void line_at(uint64_t address) {
    const auto line = tables_.source_line(address);
    EXPECT_EQ(describe(line), describe(libdwfl_.source_line(address))) << "line at " << hex(address);
    compared_.lines += line.has_value();
  }
  void inlined_at(uint64_t address) {
    const auto chain = tables_.inline_chain(address);
    EXPECT_EQ(describe(chain), describe(libdwfl_.inline_chain(address))) << "inlined at " << hex(address);
    compared_.inlined += !chain.empty();
  }
  // Functions at every symbol's and section's ends and the bytes beside
  // them (at most `symbols` symbols) and at `spread_count` addresses over
  // the allocated sections; all three at as many over the code and at
  // every function's entry.
  const Compared& everywhere(const std::string& path, size_t symbols, size_t spread_count) {
    const Boundaries object = boundaries_of(path);
    for (const uint64_t end : evenly(object.symbol_ends, symbols))
      for (const uint64_t address : {end - 1, end, end + 1}) function_at(address);
    for (const auto& [start, end] : object.sections)
      for (const uint64_t address : {start - 1, start, end - 1, end}) function_at(address);
    for (const uint64_t address : spread(object.sections, spread_count)) function_at(address);
    std::vector<uint64_t> code = spread(object.code, spread_count);
    const std::vector<uint64_t> entries = evenly(object.function_starts, symbols);
    code.insert(code.end(), entries.begin(), entries.end());
    for (const uint64_t address : code) {
      function_at(address);
      line_at(address);
      inlined_at(address);
    }
    return compared_;
  }

 private:
  ObjectSymbols tables_;
  ObjectSymbols libdwfl_;
  Compared compared_;
};

TEST(SymbolTables, SameAsLibdwflInAnObjectByGcc) {
  SymbolTables symbols(LUMEN_TEST_SYMBOLS_FIXTURE);
  ASSERT_TRUE(symbols.opened());
  const Compared& compared = symbols.everywhere(LUMEN_TEST_SYMBOLS_FIXTURE, 100000, 4000);
  // What makes libdwfl choose was met: aliases, nesting, labels.
  for (const char* name : {"fixture_global_alias", "fixture_inner_asm", "fixture_outer_asm", "fixture_label_after",
                           "fixture_label_after_global", "fixture_data", "_ZN7fixture4workEi"})
    EXPECT_EQ(compared.names.count(name), 1u) << name;
  EXPECT_GT(compared.lines, 100u);
  EXPECT_GT(compared.inlined, 10u);
}

TEST(SymbolTables, SameAsLibdwInAnObjectWithoutAranges) {
  if (std::string(LUMEN_TEST_SYMBOLS_FIXTURE_CLANG).empty()) GTEST_SKIP() << "no clang++ to build the fixture with";
  SymbolTables symbols(LUMEN_TEST_SYMBOLS_FIXTURE_CLANG);
  ASSERT_TRUE(symbols.opened());
  const Compared& compared = symbols.everywhere(LUMEN_TEST_SYMBOLS_FIXTURE_CLANG, 100000, 4000);
  EXPECT_EQ(compared.names.count("fixture_inner_asm"), 1u);
  EXPECT_GT(compared.lines, 100u);
  EXPECT_GT(compared.inlined, 10u);
}

std::string this_process_libc() {
  Dl_info info{};
  return dladdr(reinterpret_cast<void*>(&std::printf), &info) != 0 && info.dli_fname != nullptr ? info.dli_fname : "";
}

TEST(SymbolTables, SameAsLibdwflInLibc) {
  const std::string libc = this_process_libc();
  ASSERT_FALSE(libc.empty());
  SymbolTables symbols(libc);
  ASSERT_TRUE(symbols.opened());
  // libdwfl reads every symbol at every lookup: a sample keeps this short.
  const Compared& compared = symbols.everywhere(libc, 1500, 1500);
  EXPECT_GT(compared.names.size(), 1000u);
}

TEST(SymbolTables, SameAsLibdwflInThisExecutable) {
  SymbolTables symbols("/proc/self/exe");
  ASSERT_TRUE(symbols.opened());
  const Compared& compared = symbols.everywhere("/proc/self/exe", 800, 800);
  EXPECT_GT(compared.names.size(), 500u);
}

// Symbolizers with DWARF readers of their own (not libdw), asked for the
// inline chain in GNU's form: binutils' addr2line, and llvm-symbolizer.
// addr2line 2.40 reads no DW_AT_ranges given by index (DWARF 5's rnglistx,
// which clang gives inlined instances), so clang's objects are compared
// with llvm-symbolizer.
struct Symbolizer {
  std::string program;
  std::string options;  // before the object's path
};
const Symbolizer kAddr2line{LUMEN_TEST_ADDR2LINE, " -a -i -f -e "};
const Symbolizer kLlvmSymbolizer{LUMEN_TEST_LLVM_SYMBOLIZER, " --output-style=GNU -a -i -f --no-demangle --obj="};

// Per address of `addresses` of `path`, each level's function (innermost
// first, the function holding them last) and its place: the address's
// line, then each call site. Names as DWARF has them (not demangled).
std::vector<std::vector<std::pair<std::string, std::string>>> symbolizer_chains(const Symbolizer& symbolizer,
                                                                                const std::string& path,
                                                                                const std::vector<uint64_t>& addresses) {
  TempDir dir;
  std::string input;
  for (const uint64_t address : addresses) input += hex(address) + "\n";
  const auto list = write_text(dir / "addresses", input);
  const std::string command = symbolizer.program + symbolizer.options + "'" + path + "' < '" + list.string() + "'";
  FILE* pipe = popen(command.c_str(), "r");
  std::vector<std::vector<std::pair<std::string, std::string>>> chains;
  if (pipe == nullptr) return chains;
  char buffer[8192];
  std::vector<std::string> lines;
  while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) {
    std::string line = buffer;
    if (!line.empty() && line.back() == '\n') line.pop_back();
    lines.push_back(line);
  }
  pclose(pipe);
  for (size_t i = 0; i < lines.size();) {
    if (lines[i].rfind("0x", 0) == 0) {
      chains.emplace_back();
      ++i;
      continue;
    }
    if (chains.empty() || i + 1 >= lines.size()) break;
    std::string place = lines[i + 1];
    place = place.substr(0, place.find(" (discriminator"));
    chains.back().emplace_back(lines[i], place);
    i += 2;
  }
  return chains;
}

// A function's name without its scope and parameters: "fixture::middle(int)"
// and "middle" are both "middle". addr2line names a function DWARF gives
// no linkage name by a name of its own making ("_ZN7fixtureL6middleEi" for
// a static function whose DWARF name is "middle").
std::string base_name(const std::string& name) { return analysis::unscoped_name(analysis::demangle(name)); }

// "dir/file.c:12" with the path made normal.
std::string normal_place(const std::string& file, int line) {
  return std::filesystem::path(file).lexically_normal().string() + ":" + std::to_string(line);
}
std::string normal_place(const std::string& place) {
  const size_t colon = place.rfind(':');
  if (colon == std::string::npos || place.compare(0, 2, "??") == 0) return place;
  return normal_place(place.substr(0, colon), std::atoi(place.c_str() + colon + 1));
}

// Every inlined instance enclosing an address, with its call site: the
// chains the symbolizer gives are the other symbolizer's, at addresses
// spread over the object's code and at every function's entry.
void same_chains_as(const Symbolizer& symbolizer, const std::string& path) {
  ObjectSymbols symbols(path);
  ASSERT_TRUE(symbols.opened());
  const Boundaries object = boundaries_of(path);
  std::vector<uint64_t> addresses = spread(object.code, 20000);
  addresses.insert(addresses.end(), object.function_starts.begin(), object.function_starts.end());
  const auto expected = symbolizer_chains(symbolizer, path, addresses);
  ASSERT_EQ(expected.size(), addresses.size()) << symbolizer.program;
  size_t deepest = 0, compared = 0;
  for (size_t i = 0; i < addresses.size(); ++i) {
    const auto chain = symbols.inline_chain(addresses[i]);
    // The last level is the function holding the others; each instance's
    // call site is where the level after it is placed. addr2line names
    // the innermost level by the symbol holding the address when DWARF
    // gives that level no linkage name: that name is not compared.
    std::string ours, theirs;
    for (size_t k = 0; k < chain.size(); ++k) {
      const bool named = k > 0 || chain[k].name.rfind("_Z", 0) == 0;
      ours += (named ? base_name(chain[k].name) : "-") + " at " +
              (chain[k].call_site.line > 0 ? normal_place(chain[k].call_site.file, chain[k].call_site.line) : "?") + "; ";
      if (k + 1 < expected[i].size())
        theirs += (named ? base_name(expected[i][k].first) : "-") + " at " + normal_place(expected[i][k + 1].second) + "; ";
    }
    EXPECT_EQ(ours, theirs) << "at " << hex(addresses[i]);
    // No more and no fewer levels (one where there is no function).
    EXPECT_EQ(chain.size() + 1, std::max<size_t>(expected[i].size(), 1)) << "at " << hex(addresses[i]);
    deepest = std::max(deepest, chain.size());
    compared += expected[i].size() > 1 || expected[i].at(0).second.rfind("??", 0) != 0;
  }
  EXPECT_GT(compared, 200u);
  EXPECT_GE(deepest, 3u);  // outer < middle < innermost, inlined into one another
}

TEST(SymbolTables, InlineChainsAreAddr2linesInAnObjectByGcc) {
  if (kAddr2line.program.empty()) GTEST_SKIP() << "no addr2line (binutils) to compare with";
  same_chains_as(kAddr2line, LUMEN_TEST_SYMBOLS_FIXTURE);
}

TEST(SymbolTables, InlineChainsAreLlvmSymbolizersInObjectsByGccAndClang) {
  if (kLlvmSymbolizer.program.empty()) GTEST_SKIP() << "no llvm-symbolizer to compare with";
  same_chains_as(kLlvmSymbolizer, LUMEN_TEST_SYMBOLS_FIXTURE);
  if (std::string(LUMEN_TEST_SYMBOLS_FIXTURE_CLANG).empty()) GTEST_SKIP() << "no clang++ to build the fixture with";
  same_chains_as(kLlvmSymbolizer, LUMEN_TEST_SYMBOLS_FIXTURE_CLANG);
}

TEST(SymbolTables, SameAsLibdwflAtTheEndsOfTheAddressSpace) {
  SymbolTables symbols(LUMEN_TEST_SYMBOLS_FIXTURE);
  for (const uint64_t address : {uint64_t{0}, uint64_t{1}, uint64_t{0x40}, UINT64_MAX - 1, UINT64_MAX}) {
    symbols.function_at(address);
    symbols.line_at(address);
    symbols.inlined_at(address);
  }
}

}  // namespace
}  // namespace lumen::test
