// The kernel's frames in an experiment collect recorded (clock profiling
// with -k): the kernel functions its stacks touched, named from the
// running kernel's /proc/kallsyms and added to the experiment's
// loadobjects as described code of "<Kernel>" or a module, as er_kernel
// writes them, so analysis never reads the analysing machine's kernel.
// Done by collect once the target has ended, on the machine and boot that
// recorded the addresses (they move with each boot).
#pragma once

#include <cstddef>
#include <filesystem>

namespace lumen::kernel {

struct KernelFrameNaming {
  size_t experiments = 0;  // (sub-)experiments with kernel frames
  size_t functions = 0;    // kernel functions described
  size_t unnamed = 0;      // kernel frames no symbol holds
  bool symbols_hidden = false;  // kallsyms' addresses read as zeros (kptr_restrict)
};

// Names the kernel frames of `experiment` and of every sub-experiment in
// it. Throws std::runtime_error naming a file that cannot be written.
KernelFrameNaming name_kernel_frames(const std::filesystem::path& experiment);

}  // namespace lumen::kernel
