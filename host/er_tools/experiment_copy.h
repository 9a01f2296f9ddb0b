// Copying an experiment as it is, without trusting what is inside it: its
// directories and regular files are copied, a symbolic link is copied as a
// link (never what it points to), and anything else (FIFO, device, socket)
// is left out and named. Every file is created relative to the directory
// being filled (openat with O_EXCL and O_NOFOLLOW), so nothing is written
// outside the new experiment, whatever links the old one holds.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace lumen::er_tools {

// Creates `to` (which must not exist) and copies `from` into it; returns the
// paths left out. Throws ToolError naming the path on any failure.
std::vector<std::string> copy_experiment(const std::filesystem::path& from, const std::filesystem::path& to);

}  // namespace lumen::er_tools
