#include "collector_variants.h"

#include <elf.h>

#include <cctype>
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
  std::vector<std::string> names;  // lower case
};

struct VariantList {
  std::string flag;  // empty: none
  std::string help;
  std::vector<Variant> variants;
};

std::string lowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

VariantList read_variants(const fs::path& list) {
  VariantList result;
  std::ifstream in(list);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    Variant v;
    std::string file;
    if (!(words >> v.soname >> file) || v.soname[0] == '#') continue;
    if (v.soname == "flag") {
      result.flag = file;
      std::getline(words >> std::ws, result.help);
      continue;
    }
    v.file = list.parent_path() / file;
    for (std::string name; words >> name;) v.names.push_back(lowered(name));
    result.variants.push_back(v);
  }
  return result;
}

VariantList variants_of(const InstalledPlugin& plugin) {
  return read_variants(plugin.files.collector_path().parent_path() / "collector-variants");
}

// A variant flag works through the plugin's own flag: a plugin without one
// has no variant flag.
bool has_variant_flag(const InstalledPlugin& plugin, const VariantList& list) {
  return !list.flag.empty() && plugin.collector.descriptor->flag.flag != nullptr;
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

std::map<std::string, std::string> variant_flags(const std::map<std::string, InstalledPlugin>& installed) {
  std::map<std::string, std::string> flags;
  for (const auto& [name, plugin] : installed)
    if (const VariantList list = variants_of(plugin); has_variant_flag(plugin, list)) flags[list.flag] = list.help;
  return flags;
}

std::map<std::string, fs::path> take_variant_flags(CollectRequest& request,
                                                   const std::map<std::string, InstalledPlugin>& installed) {
  std::map<std::string, fs::path> forced;
  for (auto& [flag, value] : request.plugin_flags) {
    for (const auto& [name, plugin] : installed) {
      const VariantList list = variants_of(plugin);
      if (!has_variant_flag(plugin, list) || flag != list.flag) continue;
      const std::string wanted = lowered(value);
      flag = plugin.collector.descriptor->flag.flag;
      if (wanted == "off") {
        value = "off";
        forced.erase(name);
        break;
      }
      std::string accepted;
      const Variant* chosen = nullptr;
      for (const Variant& v : list.variants) {
        if (!fs::exists(v.file)) continue;
        for (const std::string& n : v.names) {
          accepted += n + ", ";
          if (n == wanted) chosen = &v;
        }
      }
      if (chosen == nullptr)
        throw UsageError("-" + list.flag + " takes " + accepted + "or off (any case), not '" + value + "'");
      value = "";  // the plugin's flag without a value: on, options as they are
      forced[name] = chosen->file;
      break;
    }
  }
  return forced;
}

std::vector<std::string> target_needed_libraries(const std::string& program, const std::vector<std::string>& command) {
  std::vector<std::string> needed = needed_libraries(program);
  for (size_t i = 1; i < command.size(); ++i) {
    if (command[i].empty() || command[i][0] == '-') continue;
    const std::string named = resolve_target(command[i]);
    if (named.empty()) continue;
    for (const std::string& soname : needed_libraries(named)) needed.push_back(soname);
  }
  return needed;
}

void choose_collector_variants(CollectionPlan& plan, const std::string& program,
                               const std::vector<std::string>& command,
                               const std::map<std::string, fs::path>& forced) {
  const std::vector<std::string> needed = target_needed_libraries(program, command);
  for (PlannedPlugin& plugin : plan.plugins) {
    if (const auto f = forced.find(plugin.name); f != forced.end()) {
      plugin.collector_path = f->second;
      continue;
    }
    const std::vector<Variant> variants =
        read_variants(plugin.collector_path.parent_path() / "collector-variants").variants;
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
