// Every collector half built here ends its thread-local segment on its
// alignment (cmake/LumenPluginTls.ld): glibc gives a dlclose'd library's
// static TLS back without the padding it aligned the block with, and a
// half's padding left behind would keep the runtime's block below it from
// coming back at each collect -P detach.
#include <elf.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The PT_TLS header of an ELF64 object, if it has one.
std::optional<Elf64_Phdr> tls_segment(const fs::path& object) {
  std::ifstream in(object, std::ios::binary);
  Elf64_Ehdr header{};
  in.read(reinterpret_cast<char*>(&header), sizeof header);
  if (!in || header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_phentsize != sizeof(Elf64_Phdr)) return std::nullopt;
  std::vector<Elf64_Phdr> segments(header.e_phnum);
  in.seekg(static_cast<std::streamoff>(header.e_phoff));
  in.read(reinterpret_cast<char*>(segments.data()), static_cast<std::streamsize>(segments.size() * sizeof(Elf64_Phdr)));
  if (!in) return std::nullopt;
  for (const Elf64_Phdr& segment : segments)
    if (segment.p_type == PT_TLS) return segment;
  return std::nullopt;
}

TEST(PluginThreadLocals, EveryCollectorHalfEndsItsThreadLocalSegmentOnItsAlignment) {
  size_t checked = 0;
  for (const auto& entry : fs::recursive_directory_iterator(LUMEN_TEST_PLUGIN_DIR)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.rfind("collector", 0) != 0 || entry.path().extension() != ".so") continue;
    const auto tls = tls_segment(entry.path());
    if (!tls || tls->p_align <= 1) continue;
    ++checked;
    EXPECT_EQ(tls->p_memsz % tls->p_align, 0u)
        << entry.path() << ": " << tls->p_memsz << " bytes of thread-local data aligned to " << tls->p_align;
  }
  EXPECT_GT(checked, 0u) << "no collector half with thread-local data under " << LUMEN_TEST_PLUGIN_DIR
                         << " (the clock plugin's has some)";
}

}  // namespace
