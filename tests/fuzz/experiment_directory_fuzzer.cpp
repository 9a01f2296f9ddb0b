// libFuzzer target over whole experiment directories as the analysis tools
// read them: the input is a list of files (which file, what it is, its
// bytes) written into a fresh directory, founder and one descendant, and
// then read as er_print's reading layer does: header and log (regular files
// only), stacks, load objects, samples, every data file surveyed by its
// block headers and read as far as they declare, the archive index and the
// copies it names. A file may also be made a FIFO or a link to /dev/zero,
// which must be refused, never waited on. Only a FormatError may refuse
// input; a crash, a sanitizer report, another exception or a hang (caught
// by -timeout) is a bug.
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "archive_index.h"
#include "data_file_reader.h"
#include "experiment_format.h"
#include "format_error.h"
#include "loadobject_map.h"
#include "regular_file.h"
#include "sample_table.h"
#include "stack_store.h"

namespace fs = std::filesystem;
using namespace lumen::analysis;

namespace {

const char* const kFiles[] = {"header.yaml", "collector.log", "stacks", "loadobjects", "samples", "profile",
                              "archives/index.yaml", "archives/copy", "_f1.er/header.yaml", "_f1.er/stacks",
                              "_f1.er/samples", "_f1.er/profile"};
constexpr size_t kFileCount = sizeof kFiles / sizeof kFiles[0];

// One scratch directory per process, emptied before each input.
const fs::path& scratch() {
  static const fs::path* path = [] {
    std::string pattern = (fs::temp_directory_path() / "lumen_fuzz_dir_XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) std::abort();
    auto* made = new fs::path(pattern);
    std::atexit([] {
      std::error_code ec;
      fs::remove_all(scratch(), ec);
    });
    return made;
  }();
  return *path;
}

void write_file(const fs::path& file, const uint8_t* data, size_t size) {
  FILE* out = std::fopen(file.c_str(), "wb");
  if (out == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, out) != size) std::abort();
  std::fclose(out);
}

// Input: records of [file index][kind: 0 bytes, 1 FIFO, 2 link to
// /dev/zero][length, 2 bytes little-endian][bytes].
void build(const fs::path& root, const uint8_t* data, size_t size) {
  std::error_code ec;
  fs::remove_all(root, ec);
  fs::create_directories(root / "archives");
  fs::create_directories(root / "_f1.er");
  size_t at = 0;
  while (at + 4 <= size) {
    const fs::path file = root / kFiles[data[at] % kFileCount];
    const uint8_t kind = data[at + 1] % 3;
    const size_t length = std::min<size_t>(data[at + 2] | (size_t{data[at + 3]} << 8), size - at - 4);
    fs::remove(file, ec);
    if (kind == 1) mkfifo(file.c_str(), 0600);
    else if (kind == 2) fs::create_symlink("/dev/zero", file, ec);
    else write_file(file, data + at + 4, length);
    at += 4 + (kind == 0 ? length : 0);
  }
}

// What the reading layer does with one experiment directory.
void read_experiment(const fs::path& experiment) {
  try {
    const YAML::Node header = read_experiment_header(experiment);
    (void)header["plugins"];
  } catch (const YAML::Exception&) {
  } catch (const FormatError&) {
  }
  try {
    (void)read_regular_file(experiment / "collector.log", Symlinks::Refuse);
  } catch (const FormatError&) {
  }
  try {
    StackStore stacks;
    stacks.load(experiment / "stacks");
    for (uint64_t id = 0; id < stacks.size(); ++id) (void)stacks.pcs(id);
  } catch (const FormatError&) {
  }
  try {
    LoadObjectMap map;
    map.load(experiment / "loadobjects");
    map.use_archive(experiment);
    for (uint32_t epoch = 0; epoch <= map.latest_epoch(); ++epoch) (void)map.find(0x400000, epoch);
  } catch (const FormatError&) {
  }
  try {
    SampleTable samples;
    samples.load(experiment / "samples");
    (void)samples.sample_at(samples.end_ns());
  } catch (const FormatError&) {
  }
  try {
    const fs::path profile = experiment / "profile";
    if (fs::exists(fs::symlink_status(profile))) {
      const DataFileSurvey survey = survey_data_file(profile);
      read_data_file(
          profile,
          [](const RawRecord& r) {
            volatile uint8_t sink = r.payload_bytes ? *static_cast<const uint8_t*>(r.payload) : 0;
            (void)sink;
          },
          survey.declared_bytes);
    }
  } catch (const FormatError&) {
  }
  try {
    for (const auto& [path, archived] : read_archive_index(experiment)) (void)symbol_file_for(path, {}, {{path, archived}});
  } catch (const FormatError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fs::path root = scratch() / "test.1.er";
  build(root, data, size);
  read_experiment(root);
  read_experiment(root / "_f1.er");
  return 0;
}
