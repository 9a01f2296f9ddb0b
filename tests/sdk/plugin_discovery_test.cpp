// Plugin discovery below the commands: the search path, the order and
// de-duplication of plugin directories, explicit directories, and how
// collect finds --plugin and --profile before it knows every plugin's flag.
#include <gtest/gtest.h>

#include <fstream>

#include "plugin_arguments.h"
#include "plugin_catalog.h"
#include "process_runner.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

void make_plugin(const fs::path& directory) {
  fs::create_directories(directory);
  std::ofstream(directory / "collector.so") << "";
  std::ofstream(directory / "analysis.so") << "";
}

std::string plugin_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const host::PluginError& e) {
    return e.what();
  }
  return "";
}

TEST(PluginSearchPath, SplitsAtColonsAndSkipsEmptyEntries) {
  EXPECT_TRUE(host::plugin_search_path(nullptr).empty());
  EXPECT_TRUE(host::plugin_search_path("").empty());
  EXPECT_TRUE(host::plugin_search_path("::").empty());
  const auto dirs = host::plugin_search_path(":/a/b::/c:");
  ASSERT_EQ(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], fs::path("/a/b"));
  EXPECT_EQ(dirs[1], fs::path("/c"));
}

TEST(PluginSearchPath, RefusesRelativeEntries) {
  EXPECT_NE(plugin_error([] { host::plugin_search_path("/a:plugins"); })
                .find("LUMEN_PLUGIN_PATH entry 'plugins' is not an absolute directory"),
            std::string::npos);
}

TEST(PluginDiscovery, ShippedThenSearchPathThenExplicitEachDirectoryOnce) {
  TempDir dir;
  make_plugin(dir.path() / "shipped" / "clock");
  make_plugin(dir.path() / "path" / "io");
  make_plugin(dir.path() / "mine" / "net");
  const auto net = host::explicit_plugin_directory("mine/net", dir.path());
  // The search path names the shipped directory again, and an explicit
  // directory repeats one the search path found: each is listed once.
  const auto io_again = host::explicit_plugin_directory(dir.path() / "path" / "io", "/");
  const auto found = host::discover_plugin_directories(dir.path() / "shipped",
                                                       {dir.path() / "path", dir.path() / "shipped"}, {net, io_again});
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].name, "clock");
  EXPECT_EQ(found[0].origin, host::PluginOrigin::Shipped);
  EXPECT_EQ(found[1].name, "io");
  EXPECT_EQ(found[1].origin, host::PluginOrigin::SearchPath);
  EXPECT_EQ(found[2].name, "net");
  EXPECT_EQ(found[2].origin, host::PluginOrigin::Explicit);
  EXPECT_EQ(found[2].collector_path(), fs::canonical(dir.path() / "mine" / "net") / "collector.so");
}

TEST(PluginDiscovery, ExplicitDirectoryMustHoldBothHalves) {
  TempDir dir;
  EXPECT_NE(plugin_error([&] { host::explicit_plugin_directory("absent", dir.path()); })
                .find("plugin directory " + (dir.path() / "absent").string() + " does not exist"),
            std::string::npos);
  fs::create_directories(dir.path() / "half");
  std::ofstream(dir.path() / "half" / "collector.so") << "";
  EXPECT_NE(plugin_error([&] { host::explicit_plugin_directory("half", dir.path()); })
                .find("plugin directory " + (dir.path() / "half").string() + " has no analysis.so"),
            std::string::npos);
}

TEST(PluginArguments, FindsPluginsAndProfileBeforeTheTarget) {
  const auto found = collect::scan_plugin_arguments(
      {"-n", "-o", "x.er", "--plugin", "/p/io", "-i", "on", "--plugin=/p/net", "--profile=io.yaml", "prog",
       "--plugin", "/not/ours"});
  EXPECT_EQ(found.plugin_paths, (std::vector<std::string>{"/p/io", "/p/net"}));
  EXPECT_EQ(found.profile, std::optional<std::string>("io.yaml"));
}

TEST(PluginArguments, StopsAtTheTargetAndAtDoubleDash) {
  EXPECT_TRUE(collect::scan_plugin_arguments({"prog", "--plugin", "/x"}).plugin_paths.empty());
  EXPECT_TRUE(collect::scan_plugin_arguments({"-p", "on", "--", "--plugin", "/x"}).plugin_paths.empty());
  EXPECT_TRUE(collect::scan_plugin_arguments({"--plugin"}).plugin_paths.empty());  // the full parse says why
}

}  // namespace
}  // namespace lumen::test
