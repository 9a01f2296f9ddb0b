// The kernel's vDSO (clock_gettime, gettimeofday, getcpu, ...) is mapped
// from no file, so analysis would have no symbols for the time programs
// spend in it. Its image is copied into the experiment at start.
#pragma once

#include <string>

namespace lumen::collector {

// Not signal-safe. Writes the vDSO's ELF image as DIRECTORY/vdso.so; does
// nothing where the process has none. By system call, so no I/O trace or
// descriptor of the program sees it.
void save_vdso_image(const std::string& directory);

}  // namespace lumen::collector
