// libFuzzer target over the symbolizer (host/analysis/symbols): the input
// is a load object an experiment names, any bytes, written to a file and
// opened as er_print opens one (ObjectSymbols, elfutils underneath). Its
// functions, source lines, inline chains and code are asked for at
// addresses in and around each allocated section the file's section
// headers declare (read here with bounds checks of our own), and at the
// ends of the address space. A crash, a sanitizer report or a hang
// (-timeout) is a bug: a damaged object may only leave addresses unnamed.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>

#include "object_symbols.h"

namespace fs = std::filesystem;
using lumen::analysis::ObjectSymbols;

namespace {

// One scratch directory per process (a debuglink names files beside the
// object), removed at exit.
const fs::path& scratch_object() {
  static const fs::path* path = [] {
    std::string pattern = (fs::temp_directory_path() / "lumen_fuzz_symbols_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    auto* made = new fs::path(fs::path(pattern) / "libobject.so");
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(scratch_object().parent_path(), ec);
    });
    return made;
  }();
  return *path;
}

template <typename T>
T read_at(const uint8_t* data, size_t size, uint64_t offset) {
  T value{};
  if (offset <= size && sizeof value <= size - offset) std::memcpy(&value, data + offset, sizeof value);
  return value;
}

constexpr uint64_t kAlloc = 2, kExecute = 4;  // SHF_ALLOC, SHF_EXECINSTR
constexpr size_t kMaxSections = 64, kStepsPerCodeSection = 48;

// Addresses worth asking about: each allocated section's ends, and steps
// through code sections, from the ELF64 section headers as they lie.
std::set<uint64_t> addresses_of(const uint8_t* data, size_t size) {
  std::set<uint64_t> addresses{0, 1, UINT64_MAX, UINT64_MAX - 1, uint64_t{1} << 63};
  if (size < 64 || std::memcmp(data, "\177ELF", 4) != 0 || data[4] != 2) return addresses;
  const auto section_headers = read_at<uint64_t>(data, size, 0x28);
  const auto entry_size = read_at<uint16_t>(data, size, 0x3a);
  const auto count = read_at<uint16_t>(data, size, 0x3c);
  for (size_t i = 0; i < count && i < kMaxSections; ++i) {
    const uint64_t at = section_headers + i * entry_size;
    const auto flags = read_at<uint64_t>(data, size, at + 8);
    const auto start = read_at<uint64_t>(data, size, at + 16);
    const auto bytes = read_at<uint64_t>(data, size, at + 32);
    if ((flags & kAlloc) == 0) continue;
    addresses.insert({start, start + bytes - 1, start + bytes});
    if ((flags & kExecute) == 0) continue;
    const uint64_t step = std::max<uint64_t>(1, bytes / kStepsPerCodeSection);
    for (uint64_t offset = 0; offset < bytes && offset / step < kStepsPerCodeSection; offset += step)
      addresses.insert(start + offset);
  }
  return addresses;
}

volatile size_t g_sink;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fs::path& object = scratch_object();
  FILE* out = std::fopen(object.c_str(), "wb");
  if (out == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, out) != size) std::abort();
  std::fclose(out);

  const ObjectSymbols symbols(object.string());
  if (!symbols.opened()) return 0;
  g_sink = static_cast<size_t>(symbols.machine());
  size_t named = 0;
  for (const uint64_t address : addresses_of(data, size)) {
    if (const auto hit = symbols.lookup(address)) {
      g_sink = lumen::analysis::demangle(hit->name).size() + hit->start + hit->size;
      // Every symbol is read for each: a few are enough.
      if (named++ < 4) g_sink = symbols.names_at(hit->start).size();
    }
    if (const auto line = symbols.source_line(address)) g_sink = line->file.size() + static_cast<size_t>(line->line);
    for (const auto& inlined : symbols.inline_chain(address))
      g_sink = lumen::analysis::demangle(inlined.name).size() + inlined.call_site.file.size() + inlined.defining_file.size();
    g_sink = symbols.code_bytes(address, 16).size();
  }
  g_sink = symbols.exported_function("main").value_or(0);
  return 0;
}
