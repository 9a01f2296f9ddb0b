#include "install_layout.h"

namespace lumen::host {

namespace fs = std::filesystem;

fs::path executable_directory() { return fs::canonical("/proc/self/exe").parent_path(); }
fs::path runtime_library() { return executable_directory() / "../lib/lumen/liblumen_collector.so"; }
fs::path plugin_directory() { return executable_directory() / "../lib/lumen/plugins"; }
fs::path profile_directory() { return executable_directory() / "../share/lumen/profiles"; }

}  // namespace lumen::host
