// libFuzzer target over the experiment reader: the first input byte picks a
// reader (stacks, load objects, samples, or any data file record by record),
// the rest is that file's contents. A reader may refuse input only with a
// FormatError; anything else (a crash, a sanitizer report, another
// exception, a hang caught by -timeout) is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "data_file_reader.h"
#include "format_error.h"
#include "loadobject_map.h"
#include "sample_table.h"
#include "stack_store.h"

namespace {

// One scratch file per process, removed at exit (kept alive on the heap so
// the exit handler never sees it destroyed).
const std::filesystem::path& scratch_file() {
  static const std::filesystem::path* path = [] {
    std::string pattern = (std::filesystem::temp_directory_path() / "lumen_fuzz_XXXXXX").string();
    const int fd = mkstemp(pattern.data());
    if (fd < 0) std::abort();
    close(fd);
    auto* made = new std::filesystem::path(pattern);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove(scratch_file(), ec);
    });
    return made;
  }();
  return *path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::filesystem::path& file = scratch_file();
  FILE* out = std::fopen(file.c_str(), "wb");
  if (out == nullptr) std::abort();
  if (size > 1 && std::fwrite(data + 1, 1, size - 1, out) != size - 1) std::abort();
  std::fclose(out);
  try {
    switch (data[0] % 4) {
      case 0: {
        lumen::analysis::StackStore stacks;
        stacks.load(file);
        for (uint64_t id = 0; id < stacks.size(); ++id) (void)stacks.pcs(id);
        break;
      }
      case 1: {
        lumen::analysis::LoadObjectMap map;
        map.load(file);
        for (uint32_t epoch = 0; epoch <= map.latest_epoch(); ++epoch) (void)map.find(0x400000, epoch);
        break;
      }
      case 2: {
        lumen::analysis::SampleTable samples;
        samples.load(file);
        (void)samples.sample_at(samples.end_ns());
        break;
      }
      default:
        lumen::analysis::read_data_file(file, [](const lumen::analysis::RawRecord& r) {
          volatile uint8_t sink = r.payload_bytes ? *static_cast<const uint8_t*>(r.payload) : 0;
          (void)sink;
        });
        (void)lumen::analysis::block_thread_ids(file);
    }
  } catch (const lumen::analysis::FormatError&) {
    // A clear refusal is the reader doing its job.
  }
  return 0;
}
