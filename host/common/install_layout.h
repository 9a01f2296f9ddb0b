// Where the commands find the runtime, plugins and profiles: relative to the
// executable, the same in the build tree and an installed prefix
// (bin/, lib/lumen/, lib/lumen/plugins/, share/lumen/profiles/).
#pragma once

#include <filesystem>

namespace lumen::host {

std::filesystem::path executable_directory();
std::filesystem::path runtime_library();  // lib/lumen/liblumen_collector.so
std::filesystem::path plugin_directory(); // lib/lumen/plugins
std::filesystem::path profile_directory();// share/lumen/profiles

}  // namespace lumen::host
