#include "kernel_frame_names.h"

#include <lumen/record_format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "block_file.h"
#include "kernel_symbols.h"
#include "stack_store.h"

namespace lumen::kernel {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kKernelHalf = uint64_t{1} << 63;

// The kernel PCs of the experiment's stacks, as code addresses: a frame
// past the leaf is a return address, whose call is the byte before.
std::set<uint64_t> kernel_code_addresses(const fs::path& stacks_file) {
  std::set<uint64_t> addresses;
  analysis::StackStore stacks;
  stacks.load(stacks_file);
  for (uint64_t id = 0; id < stacks.size(); ++id) {
    const std::span<const uint64_t> pcs = stacks.pcs(id);
    const bool leaf_is_return = (stacks.flags(id) & LUMEN_STACK_LEAF_IS_RETURN) != 0;
    for (size_t i = 0; i < pcs.size() && pcs[i] >= kKernelHalf; ++i)  // the kernel's frames come first
      addresses.insert(i == 0 && !leaf_is_return ? pcs[i] : pcs[i] - 1);
  }
  return addresses;
}

// Blocks go at block boundaries: the file is extended to one first (zeros,
// which readers skip as a block never handed out).
void align_to_blocks(const fs::path& file) {
  const int fd = open(file.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) throw std::runtime_error("cannot write " + file.string() + ": " + std::strerror(errno));
  struct stat status;
  bool ok = fstat(fd, &status) == 0;
  if (ok && status.st_size % LUMEN_BLOCK_BYTES != 0)
    ok = ftruncate(fd, (status.st_size / LUMEN_BLOCK_BYTES + 1) * LUMEN_BLOCK_BYTES) == 0;
  const int error = errno;
  close(fd);
  if (!ok) throw std::runtime_error("cannot extend " + file.string() + ": " + std::strerror(error));
}

void describe(const fs::path& experiment, const std::vector<const KernelFunction*>& functions) {
  const fs::path file = experiment / LUMEN_LOADOBJECTS_FILE;
  align_to_blocks(file);
  BlockFile loadobjects(file);
  for (const KernelFunction* f : functions) {
    const lumen_dynamic_code_record record{0, f->start, f->end - f->start, static_cast<uint32_t>(f->name.size()),
                                           static_cast<uint32_t>(f->object.size())};
    const std::string names = f->name + f->object;
    loadobjects.append(0, LUMEN_RECORD_DYNAMIC_CODE, &record, sizeof record, names.data(), names.size());
  }
  loadobjects.finish();
}

std::vector<fs::path> experiments_in(const fs::path& founder) {
  std::vector<fs::path> found{founder};
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(founder, error); !error && it != fs::recursive_directory_iterator();
       it.increment(error)) {
    if (it->is_directory() && !it->is_symlink() && it->path().extension() == ".er") found.push_back(it->path());
  }
  return found;
}

}  // namespace

bool name_kernel_frames(const fs::path& experiment) {
  KernelSymbols symbols;
  bool symbols_read = false;
  for (const fs::path& directory : experiments_in(experiment)) {
    const fs::path stacks = directory / LUMEN_STACKS_FILE;
    if (!fs::is_regular_file(fs::symlink_status(stacks))) continue;
    const std::set<uint64_t> addresses = kernel_code_addresses(stacks);
    if (addresses.empty()) continue;
    if (!symbols_read) symbols.read_running_kernel(), symbols_read = true;
    if (symbols.hidden()) return false;
    std::set<const KernelFunction*> touched;
    for (const uint64_t address : addresses)
      if (const KernelFunction* f = symbols.find(address)) touched.insert(f);
    if (!touched.empty()) describe(directory, {touched.begin(), touched.end()});
  }
  return true;
}

}  // namespace lumen::kernel
