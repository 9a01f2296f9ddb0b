#include "plugin_catalog.h"

#include <algorithm>

namespace lumen::host {

namespace fs = std::filesystem;

namespace {

template <typename Descriptor>
const Descriptor* load_descriptor(boost::dll::shared_library& library, const fs::path& path, const char* factory) {
  try {
    library.load(path.string(), boost::dll::load_mode::rtld_lazy | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    throw PluginError("cannot load plugin " + path.string() + ": " + e.what());
  }
  if (!library.has(factory))
    throw PluginError("plugin " + path.string() + " has no factory function '" + factory + "'");
  const Descriptor* descriptor = library.get<const Descriptor*()>(factory)();
  if (descriptor == nullptr) throw PluginError("plugin " + path.string() + ": its factory returned nothing");
  if (descriptor->abi_version != LUMEN_PLUGIN_ABI_VERSION)
    throw PluginError("plugin " + path.string() + " was built for plugin ABI version " +
                      std::to_string(descriptor->abi_version) + ", this lumen speaks version " +
                      std::to_string(LUMEN_PLUGIN_ABI_VERSION) + "; rebuild it against this lumen's SDK");
  return descriptor;
}

}  // namespace

CollectorHalf load_collector_half(const fs::path& path) {
  CollectorHalf half;
  half.path = path;
  half.descriptor = load_descriptor<lumen_collector_descriptor>(half.library, path, LUMEN_COLLECTOR_FACTORY);
  return half;
}

AnalysisHalf load_analysis_half(const fs::path& path) {
  AnalysisHalf half;
  half.path = path;
  half.descriptor = load_descriptor<lumen_analysis_descriptor>(half.library, path, LUMEN_ANALYSIS_FACTORY);
  if (half.descriptor->metric_count > LUMEN_MAX_PLUGIN_METRICS)
    throw PluginError("plugin " + path.string() + " declares " + std::to_string(half.descriptor->metric_count) +
                      " metrics; at most " + std::to_string(LUMEN_MAX_PLUGIN_METRICS) + " are allowed");
  return half;
}

std::vector<PluginDirectory> find_plugin_directories(const fs::path& root) {
  std::vector<PluginDirectory> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(root, ec))
    if (entry.is_directory()) found.push_back({entry.path().filename().string(), entry.path()});
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return found;
}

}  // namespace lumen::host
