#include "target_plugins.h"

#include <algorithm>
#include <fstream>

#include "collector_variants.h"

namespace lumen::collect {

namespace {

std::vector<std::string> sonames_turning_on(const InstalledPlugin& plugin) {
  std::vector<std::string> sonames;
  std::ifstream in(plugin.files.directory / "turned-on-by");
  std::string line;
  while (std::getline(in, line)) {
    line.erase(0, line.find_first_not_of(" \t"));
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (!line.empty() && line[0] != '#') sonames.push_back(line);
  }
  return sonames;
}

}  // namespace

void turn_on_plugins_for_target(CollectRequest& request, const std::map<std::string, InstalledPlugin>& installed,
                                const std::string& program) {
  if (program.empty()) return;
  const std::vector<std::string> needed = needed_libraries(program);
  for (const auto& [name, plugin] : installed) {
    const char* flag = plugin.collector.descriptor->flag.flag;
    if (flag == nullptr) continue;
    const bool given = std::any_of(request.plugin_flags.begin(), request.plugin_flags.end(),
                                   [&](const auto& f) { return f.first == flag; });
    if (given) continue;
    for (const std::string& soname : sonames_turning_on(plugin))
      if (std::find(needed.begin(), needed.end(), soname) != needed.end()) {
        request.plugin_flags.insert(request.plugin_flags.begin(), {flag, "on"});
        break;
      }
  }
}

}  // namespace lumen::collect
