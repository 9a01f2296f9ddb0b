// Plugins are opened only when a run needs them: collect plans from
// manifests and loads the planned collector halves; er_print loads the
// analysis halves of the plugins an experiment recorded, and of a plugin whose
// view the user runs. A broken or hostile plugin elsewhere in
// LUMEN_PLUGIN_PATH harms nothing else; a malformed manifest is named by file
// and line and its plugin skipped.
#include <gtest/gtest.h>
#include <lumen/plugin_abi.h>

#include <filesystem>
#include <fstream>

#include "lumen_commands.h"

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "expected to find: " << (needle) << "\n in: " << (haystack)

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

// A manifest any plugin could carry: a flag, an option, a metric and a view.
std::string manifest_for(const std::string& name, const std::string& flag) {
  return "manifest: 1\n"
         "sdk_major: " + std::to_string(LUMEN_SDK_VERSION_MAJOR) + "\n"
         "sdk_minor: " + std::to_string(LUMEN_SDK_VERSION_MINOR) + "\n"
         "name: " + name + "\n"
         "data_file: " + name + "data\n"
         "collector:\n"
         "  version: \"1.0\"\n"
         "  description: a plugin no run here needs\n"
         "  flag: {name: " + flag + ", option: mode, help: \"-" + flag + " on|off\", aliases: []}\n"
         "  options:\n"
         "    - {name: mode, kind: string, default: \"on\", min: 0, max: 0, bare_unit_ns: 0, help: mode}\n"
         "  host_hooks: []\n"
         "analysis:\n"
         "  version: \"1.0\"\n"
         "  metrics:\n"
         "    - {keyword: " + name + "count, title: Count, unit: count, flavors: 7, description: count}\n"
         "  views:\n"
         "    - {command: " + name + "view, help: the plugin's view}\n"
         "  configures: false\n";
}

// LUMEN_PLUGIN_PATH with three plugins nothing needs: one whose halves run
// code when opened (a constructor that leaves a marker file), one whose
// halves are not ELF at all, and one whose manifest is malformed on line 5.
struct BrokenPluginPath {
  fs::path root, marker, malformed_manifest;
  std::map<std::string, std::string> env;

  explicit BrokenPluginPath(const TempDir& dir)
      : root(dir.path() / "plugins"), marker(dir.path() / "plugin-code-ran"),
        malformed_manifest(root / "malformed" / "manifest.yaml") {
    for (const char* name : {"planted", "notelf", "malformed"}) fs::create_directories(root / name);
    fs::permissions(root, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
    for (const char* half : {"collector.so", "analysis.so"}) {
      fs::copy_file(LUMEN_TEST_PLANTED_PLUGIN, root / "planted" / half);
      fs::copy_file(LUMEN_TEST_PLANTED_PLUGIN, root / "malformed" / half);
      std::ofstream(root / "notelf" / half) << "this is not a shared object\n";
    }
    std::ofstream(root / "planted" / "manifest.yaml") << manifest_for("planted", "Z");
    std::ofstream(root / "notelf" / "manifest.yaml") << manifest_for("notelf", "Q");
    std::ofstream(malformed_manifest) << "manifest: 1\nsdk_major: " << LUMEN_SDK_VERSION_MAJOR
                                      << "\nsdk_minor: " << LUMEN_SDK_VERSION_MINOR
                                      << "\nname: malformed\ndata_file: [not, a, name]\n";
    env = {{"LUMEN_PLUGIN_PATH", root.string()}, {"LUMEN_TEST_PLANTED_MARKER", marker.string()}};
  }
};

ProcessResult collect_with(const TempDir& dir, const BrokenPluginPath& path, const std::vector<std::string>& args) {
  std::vector<std::string> argv{(bin_dir() / "collect").string(), "-o", "run.er", "-d", dir.path().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back((target_dir() / "threads_target").string());
  argv.push_back("0.2");
  auto env = path.env;
  env["LUMEN_TEST_TRUTH"] = (dir.path() / "truth.json").string();
  return run_process(argv, env);
}

TEST(PluginManifest, PluginsNoRunNeedsAreNeverOpened) {
  TempDir dir;
  const BrokenPluginPath path(dir);
  const ProcessResult collected = collect_with(dir, path, {"-p", "on"});
  ASSERT_EQ(collected.exit_code, 0) << collected.err;
  EXPECT_CONTAINS(collected.err, path.malformed_manifest.string() + ":5: 'data_file' is not a single value");
  EXPECT_CONTAINS(collected.err, "the plugin in " + (path.root / "malformed").string() + " is skipped");
  EXPECT_FALSE(fs::exists(path.marker)) << "collect opened a plugin it did not plan";

  const fs::path experiment = dir.path() / "run.er";
  const ProcessResult functions =
      run_process({(bin_dir() / "er_print").string(), "--format=json", "-functions", experiment.string()}, path.env);
  ASSERT_EQ(functions.exit_code, 0) << functions.err;
  EXPECT_CONTAINS(functions.err, path.malformed_manifest.string() + ":5:");
  EXPECT_CONTAINS(functions.out, "spin_b");
  EXPECT_FALSE(fs::exists(path.marker)) << "er_print opened a plugin the experiment did not record";

  // The flags of described plugins are known without opening them.
  const ProcessResult help = run_process({(bin_dir() / "collect").string(), "--help"}, path.env);
  EXPECT_EQ(help.exit_code, 0) << help.err;
  EXPECT_CONTAINS(help.out, "-Z on|off");
  EXPECT_CONTAINS(help.out, "-Q on|off");
  EXPECT_FALSE(fs::exists(path.marker)) << "collect --help opened a plugin";
}

// What a run does need is opened, and what is wrong with it is named.
TEST(PluginManifest, APluginIsOpenedWhenARunNeedsIt) {
  TempDir dir;
  const BrokenPluginPath path(dir);
  const ProcessResult collected = collect_with(dir, path, {"-p", "on"});
  ASSERT_EQ(collected.exit_code, 0) << collected.err;
  const fs::path experiment = dir.path() / "run.er";

  // A view typed by the user loads its plugin's analysis half.
  const ProcessResult view =
      run_process({(bin_dir() / "er_print").string(), "-notelfview", experiment.string()}, path.env);
  EXPECT_NE(view.exit_code, 0);
  EXPECT_CONTAINS(view.err, (path.root / "notelf" / "analysis.so").string());
  const ProcessResult planted =
      run_process({(bin_dir() / "er_print").string(), "-plantedview", experiment.string()}, path.env);
  EXPECT_NE(planted.exit_code, 0);
  EXPECT_CONTAINS(planted.err, "has no factory function 'lumen_analysis_plugin'");
  EXPECT_TRUE(fs::exists(path.marker));
  fs::remove(path.marker);

  // A planned plugin's collector half is loaded before the target starts.
  TempDir other;
  const BrokenPluginPath other_path(other);
  const ProcessResult flagged = collect_with(other, other_path, {"-p", "on", "-Q", "on"});
  EXPECT_EQ(flagged.exit_code, 2);
  EXPECT_CONTAINS(flagged.err, (other_path.root / "notelf" / "collector.so").string());
  EXPECT_FALSE(fs::exists(other.path() / "truth.json")) << "the target ran with a plugin that cannot load";
}

}  // namespace
}  // namespace lumen::test
