// er_kernel as a function: options, sampling every CPU while the command
// runs (or for -t, or until interrupted), the experiment, the archive.
// Returns the exit status: the command's, else 0; 1 when recording could
// not start, 2 for bad usage.
#pragma once

#include <string>
#include <vector>

namespace lumen::kernel {

int run_er_kernel(const std::vector<std::string>& args);

}  // namespace lumen::kernel
