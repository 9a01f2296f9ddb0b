#include "plugin_catalog.h"

#include <sys/stat.h>

#include <algorithm>
#include <iostream>

#include "sdk_compatibility.h"

namespace lumen::host {

namespace fs = std::filesystem;

namespace {

template <typename Descriptor>
const Descriptor* given_descriptor(boost::dll::shared_library& library, const fs::path& path, const char* factory) {
  try {
    library.load(path.string(), boost::dll::load_mode::rtld_lazy | boost::dll::load_mode::rtld_local);
  } catch (const std::exception& e) {
    throw PluginError("cannot load plugin " + path.string() + ": " + e.what());
  }
  if (!library.has(factory))
    throw PluginError("plugin " + path.string() + " has no factory function '" + factory + "'");
  const Descriptor* descriptor = library.get<const Descriptor*()>(factory)();
  if (descriptor == nullptr) throw PluginError("plugin " + path.string() + ": its factory returned nothing");
  if (const std::string refusal = metadata::sdk_refusal(path.string(), {descriptor->sdk_major, descriptor->sdk_minor});
      !refusal.empty())
    throw PluginError(refusal);
  return descriptor;
}

struct CollectorRead {
  lumen_collector_descriptor descriptor;
  lumen_collector_hooks hooks;
};

}  // namespace

CollectorHalf load_collector_half(const fs::path& path) {
  CollectorHalf half;
  half.path = path;
  const auto* given = given_descriptor<lumen_collector_descriptor>(half.library, path, LUMEN_COLLECTOR_FACTORY);
  auto read = std::make_shared<CollectorRead>();
  read->descriptor = metadata::read_sized(*given);
  if (read->descriptor.host_hooks != nullptr) {
    read->hooks = metadata::read_sized(*read->descriptor.host_hooks);
    read->descriptor.host_hooks = &read->hooks;
  }
  half.descriptor = &read->descriptor;
  half.read = std::move(read);
  return half;
}

AnalysisHalf load_analysis_half(const fs::path& path) {
  AnalysisHalf half;
  half.path = path;
  const auto* given = given_descriptor<lumen_analysis_descriptor>(half.library, path, LUMEN_ANALYSIS_FACTORY);
  auto read = std::make_shared<lumen_analysis_descriptor>(metadata::read_sized(*given));
  half.descriptor = read.get();
  half.read = std::move(read);
  return half;
}

std::shared_ptr<const DescribedPlugin> read_plugin_manifest(const PluginDirectory& directory) {
  const fs::path file = directory.manifest_path();
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(file, ec))) return nullptr;
  return std::make_shared<const DescribedPlugin>(read_manifest(file), file);
}

namespace {

[[noreturn]] void refuse_stale(const DescribedPlugin& manifest, const fs::path& half, const std::string& what) {
  throw PluginError("plugin manifest " + manifest.file().string() + " does not describe " + half.string() + ": " +
                    what + " differs; the manifest is stale (rebuild the plugin, which regenerates it, or run "
                    "lumen-describe-plugin " + half.parent_path().string() + ")");
}

}  // namespace

CollectorHalf load_described_collector_half(const PluginDirectory& directory, const DescribedPlugin* manifest) {
  CollectorHalf half = load_collector_half(directory.collector_path());
  if (manifest != nullptr)
    if (const std::string what = collector_difference(manifest->data(), *half.descriptor); !what.empty())
      refuse_stale(*manifest, half.path, what);
  return half;
}

AnalysisHalf load_described_analysis_half(const PluginDirectory& directory, const DescribedPlugin* manifest) {
  AnalysisHalf half = load_analysis_half(directory.analysis_path());
  if (manifest != nullptr)
    if (const std::string what = analysis_difference(manifest->data(), *half.descriptor); !what.empty())
      refuse_stale(*manifest, half.path, what);
  return half;
}

const char* origin_name(PluginOrigin origin) {
  switch (origin) {
    case PluginOrigin::Shipped: return "shipped";
    case PluginOrigin::SearchPath: return "LUMEN_PLUGIN_PATH";
    case PluginOrigin::Explicit: return "explicit";
  }
  return "?";
}

std::vector<PluginDirectory> find_plugin_directories(const fs::path& root, PluginOrigin origin) {
  std::vector<PluginDirectory> found;
  std::error_code ec;
  const bool searched = origin == PluginOrigin::SearchPath;
  // Anyone may put a library into a directory everyone can write to, and
  // loading a plugin runs its code.
  struct stat st;
  if (searched && stat(root.c_str(), &st) == 0 && (st.st_mode & S_IWOTH) != 0) {
    std::cerr << "lumen: warning: LUMEN_PLUGIN_PATH directory " << root.string()
              << " is writable by everyone; no plugin is loaded from it\n";
    return found;
  }
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    if (!entry.is_directory()) continue;
    // A search-path directory may hold other things than plugins: those are
    // passed over with a word, not a reason to refuse to run.
    if (searched && !(fs::exists(entry.path() / "collector.so") && fs::exists(entry.path() / "analysis.so"))) {
      std::cerr << "lumen: warning: " << entry.path().string()
                << " (in LUMEN_PLUGIN_PATH) is not a plugin: it has no collector.so and analysis.so; skipped\n";
      continue;
    }
    found.push_back({entry.path().filename().string(), entry.path(), origin});
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return found;
}

std::vector<fs::path> plugin_search_path(const char* value) {
  std::vector<fs::path> directories;
  if (value == nullptr) return directories;
  const std::string text = value;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(':', start), text.size());
    const std::string entry = text.substr(start, end - start);
    if (!entry.empty()) {
      if (entry[0] != '/')
        throw PluginError("LUMEN_PLUGIN_PATH entry '" + entry +
                          "' is not an absolute directory; plugins are never looked up relative to the current "
                          "directory");
      directories.emplace_back(entry);
    }
    start = end + 1;
  }
  return directories;
}

PluginDirectory explicit_plugin_directory(const fs::path& path, const fs::path& base, PluginOrigin origin) {
  const fs::path directory = (path.is_absolute() ? path : base / path).lexically_normal();
  if (!fs::is_directory(directory))
    throw PluginError("plugin directory " + directory.string() +
                      " does not exist (a plugin is a directory holding collector.so and analysis.so)");
  for (const char* half : {"collector.so", "analysis.so"})
    if (!fs::exists(directory / half))
      throw PluginError("plugin directory " + directory.string() + " has no " + half +
                        " (a plugin is a directory holding collector.so and analysis.so)");
  std::string name = directory.filename().string();
  if (name.empty()) name = directory.parent_path().filename().string();
  return {name, directory, origin};
}

std::vector<PluginDirectory> discover_plugin_directories(const fs::path& shipped, const std::vector<fs::path>& search_path,
                                                         const std::vector<PluginDirectory>& explicit_directories) {
  std::vector<PluginDirectory> found;
  std::vector<fs::path> seen;
  auto add = [&](const PluginDirectory& dir) {
    std::error_code ec;
    fs::path key = fs::weakly_canonical(dir.directory, ec);
    if (ec) key = dir.directory;
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) return;
    seen.push_back(key);
    found.push_back({dir.name, key, dir.origin});
  };
  for (const PluginDirectory& dir : find_plugin_directories(shipped, PluginOrigin::Shipped)) add(dir);
  for (const fs::path& root : search_path)
    for (const PluginDirectory& dir : find_plugin_directories(root, PluginOrigin::SearchPath)) add(dir);
  for (const PluginDirectory& dir : explicit_directories) add(dir);
  return found;
}

void check_plugins_distinct(const std::vector<const AnalysisHalf*>& halves) {
  for (size_t i = 0; i < halves.size(); ++i) {
    const lumen_analysis_descriptor& a = *halves[i]->descriptor;
    for (size_t j = 0; j < i; ++j) {
      const lumen_analysis_descriptor& b = *halves[j]->descriptor;
      const std::string both = halves[j]->path.string() + " and " + halves[i]->path.string();
      if (std::string(a.name) == b.name)
        throw PluginError("two plugins are named '" + std::string(a.name) + "': " + both);
      if (std::string(a.data_file) == b.data_file)
        throw PluginError("two plugins claim the data file '" + std::string(a.data_file) + "': " + both);
      for (size_t m = 0; m < a.metric_count; ++m)
        for (size_t n = 0; n < b.metric_count; ++n)
          if (std::string(a.metrics[m].keyword) == b.metrics[n].keyword)
            throw PluginError("two plugins define the metric keyword '" + std::string(a.metrics[m].keyword) +
                              "': " + both);
    }
  }
}

}  // namespace lumen::host
