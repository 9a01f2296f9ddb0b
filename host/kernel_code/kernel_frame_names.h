// The kernel's frames in an experiment collect recorded (clock profiling
// with -k): the kernel functions its stacks touched, named from the
// running kernel's /proc/kallsyms and added to the experiment's
// loadobjects as described code of "<Kernel>" or a module, as er_kernel
// writes them, so analysis never reads the analysing machine's kernel.
// Done by collect once the target has ended, on the machine and boot that
// recorded the addresses (they move with each boot).
#pragma once

#include <filesystem>

namespace lumen::kernel {

// Names the kernel frames of `experiment` and of every sub-experiment in
// it. Returns false when kallsyms hides the kernel's addresses from this
// user (kernel.kptr_restrict): the frames stay unnamed. Throws
// std::runtime_error naming a file that cannot be written.
bool name_kernel_frames(const std::filesystem::path& experiment);

}  // namespace lumen::kernel
