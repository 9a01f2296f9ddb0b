// The kernel's vDSO, which every process maps from no file: er_kernel's own
// image stands for every process's (one kernel), copied into each process
// image's experiment as vdso.so so its functions are named as collect's are.
#pragma once

#include <cstdint>
#include <string>

namespace lumen::kernel {

inline constexpr const char* kVdsoMapping = "[vdso]";  // its name in maps and the kernel's records

// The image's bytes; empty when this process has none.
const std::string& vdso_image();
// The virtual address its first loaded segment is linked at (the load bias
// of a mapping at `start` is start minus this).
uint64_t vdso_link_address();

}  // namespace lumen::kernel
