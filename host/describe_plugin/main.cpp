// lumen-describe-plugin DIR: writes DIR/manifest.yaml from the descriptors of
// DIR/collector.so and DIR/analysis.so. lumen_add_plugin runs it after
// building both halves, so the manifest collect and er_print read instead of
// opening every plugin says exactly what the halves say.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "plugin_catalog.h"
#include "plugin_manifest.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: lumen-describe-plugin PLUGIN_DIRECTORY\n"
                 "writes PLUGIN_DIRECTORY/manifest.yaml from its collector.so and analysis.so\n";
    return 2;
  }
  try {
    const lumen::host::PluginDirectory directory{fs::path(argv[1]).filename().string(), fs::path(argv[1]),
                                                 lumen::host::PluginOrigin::Explicit};
    const auto collector = lumen::host::load_collector_half(directory.collector_path());
    const auto analysis = lumen::host::load_analysis_half(directory.analysis_path());
    const std::string text =
        lumen::host::manifest_text(lumen::host::describe_plugin(*collector.descriptor, *analysis.descriptor));
    // Written beside and renamed, so a reader never sees half a manifest.
    const fs::path target = directory.manifest_path();
    const fs::path partial = target.string() + ".partial";
    {
      std::ofstream out(partial, std::ios::trunc);
      out << text;
      if (!out.flush()) throw std::runtime_error("cannot write " + partial.string());
    }
    fs::rename(partial, target);
  } catch (const std::exception& e) {
    std::cerr << "lumen-describe-plugin: " << argv[1] << ": " << e.what() << "\n";
    return 1;
  }
  return 0;
}
