#include "exported_function.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace lumen::attach {

namespace {

struct MapsLine {
  uint64_t start = 0;
  uint64_t offset = 0;
  std::string path;
};

std::optional<MapsLine> parse(const std::string& line) {
  std::istringstream in(line);
  std::string range, permissions, offset, device, inode;
  MapsLine parsed;
  if (!(in >> range >> permissions >> offset >> device >> inode)) return std::nullopt;
  std::getline(in >> std::ws, parsed.path);
  parsed.start = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
  parsed.offset = std::stoull(offset, nullptr, 16);
  return parsed;
}

template <typename Match>
std::optional<MappedObject> first_mapping(pid_t pid, Match matches) {
  std::ifstream maps("/proc/" + std::to_string(pid) + "/maps");
  std::string line;
  while (std::getline(maps, line)) {
    const std::optional<MapsLine> m = parse(line);
    if (!m || m->offset != 0 || m->path.empty() || m->path[0] != '/' || !matches(m->path)) continue;
    return MappedObject{m->path, m->start};  // offset 0: the first segment (shared objects are linked at 0)
  }
  return std::nullopt;
}

}  // namespace

std::optional<MappedObject> mapped_object(pid_t pid, const std::string& name_prefix) {
  return first_mapping(pid, [&](const std::string& path) {
    return path.compare(path.rfind('/') + 1, name_prefix.size(), name_prefix) == 0;
  });
}

std::vector<std::string> mapped_object_names(pid_t pid) {
  std::vector<std::string> names;
  first_mapping(pid, [&](const std::string& path) {
    names.push_back(path.substr(path.rfind('/') + 1));
    return false;
  });
  return names;
}

std::optional<MappedObject> mapped_object_at(pid_t pid, const std::string& wanted) {
  return first_mapping(pid, [&](const std::string& path) { return path == wanted; });
}

std::optional<uint64_t> exported_function(pid_t pid, const MappedObject& object, const std::string& name) {
  const std::string file = "/proc/" + std::to_string(pid) + "/root" + object.path;
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  elf_version(EV_CURRENT);
  Elf* elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
  std::optional<uint64_t> found;
  Elf_Scn* symbols = nullptr;
  Elf_Scn* versions = nullptr;
  for (Elf_Scn* section = nullptr; elf != nullptr && (section = elf_nextscn(elf, section)) != nullptr;) {
    GElf_Shdr header;
    if (gelf_getshdr(section, &header) == nullptr) continue;
    if (header.sh_type == SHT_DYNSYM) symbols = section;
    if (header.sh_type == SHT_GNU_versym) versions = section;
  }
  GElf_Shdr header;
  if (symbols != nullptr && gelf_getshdr(symbols, &header) != nullptr && header.sh_entsize != 0) {
    Elf_Data* data = elf_getdata(symbols, nullptr);
    Elf_Data* version_data = versions != nullptr ? elf_getdata(versions, nullptr) : nullptr;
    const size_t count = header.sh_size / header.sh_entsize;
    for (size_t i = 0; data != nullptr && i < count; ++i) {
      GElf_Sym symbol;
      if (gelf_getsym(data, static_cast<int>(i), &symbol) == nullptr) continue;
      if (symbol.st_shndx == SHN_UNDEF || GELF_ST_TYPE(symbol.st_info) != STT_FUNC) continue;
      const char* symbol_name = elf_strptr(elf, header.sh_link, symbol.st_name);
      if (symbol_name == nullptr || name != symbol_name) continue;
      GElf_Versym version = 0;
      if (version_data != nullptr && gelf_getversym(version_data, static_cast<int>(i), &version) != nullptr &&
          (version & 0x8000) != 0)
        continue;  // a hidden, older version
      found = symbol.st_value;
      break;
    }
  }
  if (elf != nullptr) elf_end(elf);
  close(fd);
  return found;
}

}  // namespace lumen::attach
