#include "collector_variants.h"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "target_launcher.h"

namespace lumen::collect {

namespace fs = std::filesystem;

namespace {

template <typename T>
bool read_at(std::ifstream& file, uint64_t offset, T* value) {
  file.seekg(static_cast<std::streamoff>(offset));
  file.read(reinterpret_cast<char*>(value), sizeof(T));
  return static_cast<bool>(file);
}

// File offset of a virtual address, through the PT_LOAD segments.
bool file_offset(const std::vector<Elf64_Phdr>& segments, uint64_t address, uint64_t* offset) {
  for (const Elf64_Phdr& s : segments)
    if (s.p_type == PT_LOAD && address >= s.p_vaddr && address < s.p_vaddr + s.p_filesz) {
      *offset = address - s.p_vaddr + s.p_offset;
      return true;
    }
  return false;
}

struct Variant {
  std::string soname;
  fs::path file;
};

std::vector<Variant> read_variants(const fs::path& list) {
  std::vector<Variant> variants;
  std::ifstream in(list);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    Variant v;
    std::string file;
    if (!(words >> v.soname >> file) || v.soname[0] == '#') continue;
    v.file = list.parent_path() / file;
    variants.push_back(v);
  }
  return variants;
}

}  // namespace

std::vector<std::string> needed_libraries(const std::string& path) {
  std::vector<std::string> needed;
  std::ifstream file(path, std::ios::binary);
  Elf64_Ehdr header{};
  if (!read_at(file, 0, &header) || std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_phentsize != sizeof(Elf64_Phdr))
    return needed;
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  for (size_t i = 0; i < segments.size(); ++i)
    if (!read_at(file, header.e_phoff + i * sizeof(Elf64_Phdr), &segments[i])) return needed;
  for (const Elf64_Phdr& dynamic : segments) {
    if (dynamic.p_type != PT_DYNAMIC) continue;
    std::vector<uint64_t> name_offsets;
    uint64_t strtab_address = 0;
    for (uint64_t at = dynamic.p_offset; at + sizeof(Elf64_Dyn) <= dynamic.p_offset + dynamic.p_filesz;
         at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn entry{};
      if (!read_at(file, at, &entry) || entry.d_tag == DT_NULL) break;
      if (entry.d_tag == DT_NEEDED) name_offsets.push_back(entry.d_un.d_val);
      if (entry.d_tag == DT_STRTAB) strtab_address = entry.d_un.d_ptr;
    }
    uint64_t strtab = 0;
    if (!file_offset(segments, strtab_address, &strtab)) return needed;
    for (const uint64_t name : name_offsets) {
      file.clear();
      file.seekg(static_cast<std::streamoff>(strtab + name));
      std::string soname;
      std::getline(file, soname, '\0');
      if (file) needed.push_back(soname);
    }
  }
  return needed;
}

void choose_collector_variants(CollectionPlan& plan, const std::string& program,
                               const std::vector<std::string>& command) {
  std::vector<std::string> needed = needed_libraries(program);
  for (size_t i = 1; i < command.size(); ++i) {
    if (command[i].empty() || command[i][0] == '-') continue;
    const std::string named = resolve_target(command[i]);
    if (named.empty()) continue;
    for (const std::string& soname : needed_libraries(named)) needed.push_back(soname);
  }
  for (PlannedPlugin& plugin : plan.plugins) {
    const std::vector<Variant> variants = read_variants(plugin.collector_path.parent_path() / "collector-variants");
    bool chosen = false;
    for (const std::string& soname : needed) {
      for (const Variant& v : variants)
        if (v.soname == soname && fs::exists(v.file)) {
          plugin.collector_path = v.file;
          chosen = true;
          break;
        }
      if (chosen) break;
    }
  }
}

}  // namespace lumen::collect
