// Plugin manifests: written from the halves' descriptors, read back equal,
// every shipped plugin's manifest agreeing with its halves, and a malformed
// or stale one named by file and line or by what differs.
#include <gtest/gtest.h>
#include <lumen/plugin_abi.h>

#include "plugin_catalog.h"
#include "plugin_manifest.h"
#include "test_support.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using host::ManifestError;

const fs::path kPluginDir = LUMEN_TEST_PLUGIN_DIR;

host::ManifestData clock_description() {
  const auto collector = host::load_collector_half(kPluginDir / "clock" / "collector.so");
  const auto analysis = host::load_analysis_half(kPluginDir / "clock" / "analysis.so");
  return host::describe_plugin(*collector.descriptor, *analysis.descriptor);
}

TEST(PluginManifest, ReadsBackWhatItWrote) {
  TempDir dir;
  const host::ManifestData described = clock_description();
  const fs::path file = write_text(dir.path() / "manifest.yaml", host::manifest_text(described));
  const host::ManifestData read = host::read_manifest(file);
  EXPECT_EQ(read.name, "clock");
  EXPECT_EQ(read.data_file, described.data_file);
  EXPECT_EQ(read.collector, described.collector);
  EXPECT_EQ(read.analysis, described.analysis);
  EXPECT_EQ(read.collector.flag, "p");
}

// The descriptors built from a manifest say what the halves say.
TEST(PluginManifest, EveryBuiltPluginsManifestAgreesWithItsHalves) {
  size_t plugins = 0;
  for (const host::PluginDirectory& dir : host::find_plugin_directories(kPluginDir)) {
    const auto manifest = host::read_plugin_manifest(dir);
    ASSERT_NE(manifest, nullptr) << dir.directory << " has no manifest";
    const auto collector = host::load_collector_half(dir.collector_path());
    const auto analysis = host::load_analysis_half(dir.analysis_path());
    EXPECT_EQ(host::collector_difference(manifest->data(), *collector.descriptor), "") << dir.directory;
    EXPECT_EQ(host::analysis_difference(manifest->data(), *analysis.descriptor), "") << dir.directory;
    EXPECT_EQ(manifest->collector()->option_count, collector.descriptor->option_count) << dir.directory;
    EXPECT_EQ(manifest->analysis()->metric_count, analysis.descriptor->metric_count) << dir.directory;
    ++plugins;
  }
  EXPECT_GE(plugins, 7u);
}

TEST(PluginManifest, AStaleManifestIsRefusedWhenItsHalfIsLoaded) {
  TempDir dir;
  host::ManifestData stale = clock_description();
  stale.collector.options.at(0).default_value = "20ms";
  stale.analysis.metrics.at(0).title = "Another Title";
  const fs::path plugin = dir.path() / "clock";
  fs::create_directories(plugin);
  for (const char* half : {"collector.so", "analysis.so"}) fs::copy_file(kPluginDir / "clock" / half, plugin / half);
  write_text(plugin / "manifest.yaml", host::manifest_text(stale));
  const host::PluginDirectory files{"clock", plugin};
  const auto manifest = host::read_plugin_manifest(files);
  EXPECT_EQ(manifest->collector()->options[0].default_value, std::string("20ms"));
  try {
    host::load_described_collector_half(files, manifest.get());
    FAIL() << "a stale manifest was accepted";
  } catch (const host::PluginError& e) {
    EXPECT_NE(std::string(e.what()).find((plugin / "manifest.yaml").string() + " does not describe " +
                                         (plugin / "collector.so").string() + ": its options differ"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(host::load_described_analysis_half(files, manifest.get()), host::PluginError);
}

std::string problem_in(const std::string& text) {
  TempDir dir;
  const fs::path file = write_text(dir.path() / "manifest.yaml", text);
  try {
    host::read_manifest(file);
  } catch (const ManifestError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(file.string() + ":", 0), 0u) << what;
    return what.substr(file.string().size());
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

const std::string kMajor = std::to_string(LUMEN_SDK_VERSION_MAJOR);
const std::string kMinor = std::to_string(LUMEN_SDK_VERSION_MINOR);
const std::string kSdk = "sdk_major: " + kMajor + "\nsdk_minor: " + kMinor + "\n";
const std::string kHead = "manifest: 1\n" + kSdk + "name: x\ndata_file: xdata\n";

TEST(PluginManifest, AMalformedManifestIsNamedByFileAndLine) {
  EXPECT_EQ(problem_in("manifest: 1\nname: [unclosed\n"), ":3: end of sequence flow not found");
  EXPECT_EQ(problem_in("- a list\n"),
            ":1: a manifest is a map of keys (manifest, name, data_file, collector, analysis)");
  EXPECT_EQ(problem_in("manifest: 1\n" + kSdk + "name: x\ndata_file: [a, b]\n"),
            ":5: 'data_file' is not a single value");
  EXPECT_EQ(problem_in(kHead + "collector:\n  options:\n    - {name: a, kind: colour}\n"
                       "analysis: {}\n"),
            ":8: 'kind' is not one of the known words: 'colour'");
  EXPECT_EQ(problem_in(kHead + "collector: {}\nanalysis:\n  metrics:\n"
                       "    - {keyword: k, unit: count, flavors: many}\n"),
            ":9: 'flavors' is not a number: 'many'");
  EXPECT_EQ(problem_in(kHead + "collector:\n  host_hooks: [check, launch]\nanalysis: {}\n"),
            ":7: unknown host hook 'launch' (check, describe_values, leave_out)");
  EXPECT_EQ(problem_in(kHead + "analysis: {}\n"), ":1: no 'collector'");
}

// The manifest says which SDK its plugin was built against; the loaders'
// rule applies to it, naming the plugin.
TEST(PluginManifest, TheSdkVersionRuleAppliesToTheManifest) {
  const std::string newer = std::to_string(LUMEN_SDK_VERSION_MINOR + 1);
  EXPECT_EQ(problem_in("manifest: 1\nsdk_major: " + kMajor + "\nsdk_minor: " + newer + "\nname: x\n"),
            ":3: plugin x needs lumen SDK " + kMajor + "." + newer + " (minor version " + newer +
                "); this lumen offers SDK " + kMajor + "." + kMinor + " (minor version " + kMinor +
                "): use a newer lumen, or build the plugin against this SDK");
  const std::string other = std::to_string(LUMEN_SDK_VERSION_MAJOR + 1);
  EXPECT_EQ(problem_in("manifest: 1\nsdk_major: " + other + "\nsdk_minor: 0\nname: x\n"),
            ":2: plugin x was built against lumen SDK " + other + ".0, of major version " + other +
                "; this lumen offers SDK " + kMajor + "." + kMinor + ": rebuild the plugin against this lumen's SDK");
  EXPECT_EQ(problem_in("manifest: 1\nabi_version: 15\nname: x\n"), ":1: no 'sdk_major'");
}

}  // namespace
}  // namespace lumen::test
