// The SDK from the outside. The fixture test sdk.install_and_build_example
// has installed lumen into a prefix and built examples/fsync-plugin against it
// (install_and_build_example.cmake); these tests use only what is there: the
// installed commands, and the plugin the example built.
#include <gtest/gtest.h>
#include <lumen/plugin_abi.h>

#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "process_runner.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;

const fs::path kSdkDir = LUMEN_TEST_SDK_DIR;
const fs::path kPrefix = kSdkDir / "prefix";
const fs::path kExampleBuild = kSdkDir / "example-build";
// The example built against the frozen SDK 1.0 headers (tests/sdk/frozen-1.0).
const fs::path kExampleBuild10 = kSdkDir / "example-build-1.0";
const fs::path kFsyncPlugin = kExampleBuild / "lumen-plugins" / "fsync";
const fs::path kFixtures = LUMEN_TEST_FIXTURE_DIR;

std::string collect_path() { return (kPrefix / "bin" / "collect").string(); }
std::string er_print_path() { return (kPrefix / "bin" / "er_print").string(); }

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "in: " << (haystack)

struct FsyncRun {
  fs::path experiment;
  nlohmann::json truth;
  ProcessResult run;
};

// Runs the example's fsync_target (of `example_build`) under the installed
// collect, with the collect arguments given, writing its files and truth
// into `dir`.
FsyncRun collect_fsync(const TempDir& dir, const std::vector<std::string>& collect_args,
                       const std::map<std::string, std::string>& env = {},
                       const fs::path& example_build = kExampleBuild) {
  FsyncRun r;
  r.experiment = dir.path() / "fsync.er";
  const fs::path files = dir.path() / "files";
  fs::create_directories(files);
  std::vector<std::string> argv{collect_path(), "-o", "fsync.er", "-d", dir.path().string()};
  argv.insert(argv.end(), collect_args.begin(), collect_args.end());
  for (const std::string& a : {(example_build / "fsync_target").string(), files.string(),
                               (dir.path() / "truth.json").string()})
    argv.push_back(a);
  r.run = run_process(argv, env);
  std::ifstream in(dir.path() / "truth.json");
  if (in) r.truth = nlohmann::json::parse(in);
  return r;
}

// er_print loads no plugin from a directory an experiment records: the
// example's analysis half is named with --plugin, unless the test gives a
// LUMEN_PLUGIN_PATH of its own.
nlohmann::json er_print_json(const std::vector<std::string>& args, const fs::path& experiment,
                             const std::map<std::string, std::string>& env = {},
                             const fs::path& plugin = kFsyncPlugin) {
  std::vector<std::string> argv{er_print_path(), "--format=json"};
  if (env.count("LUMEN_PLUGIN_PATH") == 0) argv.insert(argv.end(), {"--plugin", plugin.string()});
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(experiment.string());
  const ProcessResult r = run_process(argv, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return nlohmann::json::object();
  return nlohmann::json::parse(r.out);
}

// The rows of a plugin view's first table by name: name -> values.
std::map<std::string, nlohmann::json> table_rows(const nlohmann::json& view, size_t table = 0) {
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : view.at("tables").at(table).at("rows")) rows[row.at("name").get<std::string>()] = row;
  return rows;
}

// ---- the installation ----

TEST(Installation, HoldsCommandsRuntimePluginsProfilesHeadersAndPackage) {
  for (const char* file : {"bin/collect", "bin/er_print", "lib/lumen/liblumen_collector.so",
                           "lib/lumen/plugins/clock/collector.so", "lib/lumen/plugins/clock/analysis.so",
                           "share/lumen/profiles/default.yaml", "include/lumen/plugin_abi.h",
                           "include/lumen/collector_plugin.h", "include/lumen/analysis_plugin.h",
                           "include/lumen/analysis_support.h", "include/lumen/record_format.h", "lib/cmake/lumen/lumenConfig.cmake",
                           "lib/cmake/lumen/lumenConfigVersion.cmake", "lib/cmake/lumen/LumenPlugin.cmake"})
    EXPECT_TRUE(fs::exists(kPrefix / file)) << file;
  EXPECT_TRUE(fs::exists(kFsyncPlugin / "collector.so"));
  EXPECT_TRUE(fs::exists(kFsyncPlugin / "analysis.so"));
  EXPECT_TRUE(fs::exists(kPrefix / "lib/lumen/plugins/clock/manifest.yaml"));
  EXPECT_TRUE(fs::exists(kPrefix / "lib/lumen/lumen-describe-plugin"));
}

// lumen_add_plugin of the installed package wrote the example's manifest
// with the installed describer, from the halves it built.
TEST(Installation, TheExamplesManifestWasWrittenFromItsHalves) {
  std::ifstream in(kFsyncPlugin / "manifest.yaml");
  ASSERT_TRUE(in) << "the example has no manifest.yaml";
  const std::string manifest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_CONTAINS(manifest, "name: \"fsync\"");
  EXPECT_CONTAINS(manifest, "data_file: \"fsynctrace\"");
  EXPECT_CONTAINS(manifest, "command: \"fsyncs\"");
  std::ifstream cache(kExampleBuild / "CMakeCache.txt");
  const std::string cached((std::istreambuf_iterator<char>(cache)), std::istreambuf_iterator<char>());
  EXPECT_CONTAINS(cached, "lumen_DIR:PATH=" + kPrefix.string());
}

// A manifest that no longer says what its halves say is found when the half
// is loaded, and the plugin is refused by name.
TEST(Installation, AStaleManifestIsFoundWhenItsHalfIsLoaded) {
  TempDir dir;
  const fs::path copy = dir.path() / "plugins" / "fsync";
  fs::create_directories(copy);
  fs::copy(kFsyncPlugin, copy);
  std::ifstream in(copy / "manifest.yaml");
  std::string manifest((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (size_t at; (at = manifest.find("version: \"1.0\"")) != std::string::npos;)
    manifest.replace(at, 14, "version: \"0.9\"");
  std::ofstream(copy / "manifest.yaml", std::ios::trunc) << manifest;
  const std::map<std::string, std::string> env{{"LUMEN_PLUGIN_PATH", copy.parent_path().string()}};
  const FsyncRun stale = collect_fsync(dir, {"-fsync", "on"}, env);
  EXPECT_EQ(stale.run.exit_code, 2);
  EXPECT_CONTAINS(stale.run.err, "plugin manifest " + (copy / "manifest.yaml").string() + " does not describe " +
                                     (copy / "collector.so").string() + ": its version (0.9 against 1.0) differs");
  EXPECT_FALSE(fs::exists(dir.path() / "truth.json")) << "the target ran";
  // Not planned, not loaded: a clock-only run does not trip over it.
  TempDir other;
  const FsyncRun clock_only = collect_fsync(other, {"-p", "on"}, env);
  EXPECT_EQ(clock_only.run.exit_code, 0) << clock_only.run.err;
  const ProcessResult view = run_process({er_print_path(), "-fsyncs", clock_only.experiment.string()}, env);
  EXPECT_NE(view.exit_code, 0);
  EXPECT_CONTAINS(view.err, "does not describe " + (copy / "analysis.so").string());
}

TEST(Installation, InstalledCommandsUseTheInstalledPlugins) {
  const ProcessResult r = run_process({collect_path(), "--list-plugins"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "clock ");
  EXPECT_CONTAINS(r.out, "from: " + fs::canonical(kPrefix / "lib/lumen/plugins/clock").string() + " (shipped)");
  EXPECT_EQ(r.out.find("\nfsync "), std::string::npos) << "the example is not installed";
  // The shipped I/O tracing plugin has names of its own.
  EXPECT_CONTAINS(r.out, "io 1.0  data file: iotrace  flag: -i");
}

// ---- the example's figures equal the target's own ----

// Each test runs for the example as built against this tree's SDK headers
// and as built against the frozen 1.0 headers, with this tree's commands.
class FsyncTracing : public ::testing::TestWithParam<fs::path> {
 protected:
  struct Collected {
    TempDir dir;
    FsyncRun run;
  };
  static void TearDownTestSuite() { runs_.clear(); }
  void SetUp() override {
    std::unique_ptr<Collected>& collected = runs_[GetParam()];
    if (collected == nullptr) {  // once per build, for all its tests
      collected = std::make_unique<Collected>();
      collected->run = collect_fsync(collected->dir, {"--plugin", plugin().string()}, {}, GetParam());
    }
    run_ = &collected->run;
    ASSERT_EQ(run_->run.exit_code, 0) << run_->run.err;
    ASSERT_TRUE(run_->truth.contains("files")) << run_->run.err;
  }
  fs::path plugin() const { return GetParam() / "lumen-plugins" / "fsync"; }
  nlohmann::json er_print(const std::vector<std::string>& args) const {
    return er_print_json(args, run_->experiment, {}, plugin());
  }
  static std::map<fs::path, std::unique_ptr<Collected>> runs_;
  const FsyncRun* run_ = nullptr;
};
std::map<fs::path, std::unique_ptr<FsyncTracing::Collected>> FsyncTracing::runs_;

INSTANTIATE_TEST_SUITE_P(SdkHeaders, FsyncTracing, ::testing::Values(kExampleBuild, kExampleBuild10),
                         [](const ::testing::TestParamInfo<fs::path>& info) {
                           return info.param == kExampleBuild ? std::string("ThisTree") : std::string("Frozen1_0");
                         });

TEST_P(FsyncTracing, TargetRunsUnchanged) {
  EXPECT_EQ(run_->run.out, "fsync_target done\n");
  EXPECT_TRUE(fs::exists(run_->experiment / "fsynctrace"));
}

TEST_P(FsyncTracing, CallsByFileEqualTheTargetsCounts) {
  const auto rows = table_rows(er_print({"-fsyncs"}));
  EXPECT_EQ(rows.size(), run_->truth.at("files").size());
  for (const auto& [file, truth] : run_->truth.at("files").items()) {
    ASSERT_EQ(rows.count(file), 1u) << file;
    const nlohmann::json& values = rows.at(file).at("values");
    EXPECT_EQ(values.at("fsynccnt").get<long long>(), truth.at("fsynccnt").get<long long>()) << file;
    // Traced time lies inside the time the target measured around the calls.
    const double seconds = values.at("fsynctime").get<double>();
    EXPECT_GT(seconds, 0.0) << file;
    EXPECT_LE(seconds, truth.at("outer_ns").get<double>() * 1e-9) << file;
  }
}

TEST_P(FsyncTracing, FunctionsViewAttributesTheMetricsThroughTheCore) {
  const nlohmann::json view = er_print({"-metrics", "e.fsynccnt:i.fsynccnt:i.fsynctime:name", "-functions"});
  std::map<std::string, nlohmann::json> rows;
  for (const auto& row : view.at("rows")) rows[row.at("name").get<std::string>()] = row.at("values");
  long long calls = 0;
  for (const auto& [function, truth] : run_->truth.at("functions").items()) {
    ASSERT_EQ(rows.count(function), 1u) << function;
    EXPECT_EQ(rows.at(function).at("i.fsynccnt").get<long long>(), truth.at("fsynccnt").get<long long>()) << function;
    EXPECT_LE(rows.at(function).at("i.fsynctime").get<double>(), truth.at("outer_ns").get<double>() * 1e-9);
    calls += truth.at("fsynccnt").get<long long>();
  }
  // The traced calls are the leaves: fsync 3 + 1 times, fdatasync 5.
  EXPECT_EQ(rows.at("fsync").at("e.fsynccnt").get<long long>(), 4);
  EXPECT_EQ(rows.at("fdatasync").at("e.fsynccnt").get<long long>(), 5);
  EXPECT_EQ(rows.at("<Total>").at("i.fsynccnt").get<long long>(), calls);
}

// What the plugin declares for the default metric list: the count, and the
// time inclusive only.
TEST_P(FsyncTracing, DefaultMetricsAreWhatThePluginDeclares) {
  const nlohmann::json view = er_print({"-functions"});
  std::vector<std::string> specs;
  for (const auto& metric : view.at("metrics")) specs.push_back(metric.at("spec").get<std::string>());
  // Clock profiling ran too (collect's default): its Total CPU Time sorts.
  EXPECT_EQ(specs, (std::vector<std::string>{"e.totalcpu", "e.%totalcpu", "i.totalcpu", "i.%totalcpu", "e.fsynccnt",
                                             "i.fsynccnt", "i.fsynctime"}));
}

TEST_P(FsyncTracing, HeaderRecordsWherePluginCameFrom) {
  std::ifstream in(run_->experiment / "header.yaml");
  const std::string header((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_CONTAINS(header, "directory: " + fs::canonical(plugin()).string());
}

// ---- discovery ----

TEST(Discovery, PluginPathListsThePluginWithVersionDataFileAndMetrics) {
  const ProcessResult r =
      run_process({collect_path(), "--list-plugins"}, {{"LUMEN_PLUGIN_PATH", kFsyncPlugin.parent_path().string()}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_CONTAINS(r.out, "fsync 1.0  data file: fsynctrace  flag: -fsync");
  EXPECT_CONTAINS(r.out, "(LUMEN_PLUGIN_PATH)");
  for (const char* metric : {"fsynccnt", "fsynctime"})
    EXPECT_CONTAINS(r.out, std::string("metric ") + metric);
  EXPECT_CONTAINS(r.out, "view -ioactivity");
}

TEST(Discovery, PluginPathGivesTheFlagAndErPrintFindsTheAnalysisHalfThere) {
  TempDir dir;
  // A copy, so that the experiment's recorded directory can disappear.
  const fs::path copy = dir.path() / "plugins" / "fsync";
  fs::create_directories(copy);
  fs::copy(kFsyncPlugin, copy);
  const FsyncRun run = collect_fsync(dir, {"-fsync", "on"}, {{"LUMEN_PLUGIN_PATH", copy.parent_path().string()}});
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  fs::rename(copy.parent_path(), dir.path() / "moved");
  // Neither recorded nor on the search path: its views are unknown, and its
  // data is skipped with a warning saying where to point.
  const ProcessResult unknown = run_process({er_print_path(), "-fsyncs", run.experiment.string()});
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_CONTAINS(unknown.err, "unknown command '-fsyncs'");
  const ProcessResult lost = run_process({er_print_path(), "-header", run.experiment.string()});
  EXPECT_CONTAINS(lost.err, "no plugin 'fsync' is installed to read the data file 'fsynctrace'");
  EXPECT_CONTAINS(lost.err, "LUMEN_PLUGIN_PATH");
  EXPECT_CONTAINS(lost.err, "which is not loaded");
  const auto rows = table_rows(er_print_json({"-fsyncs"}, run.experiment,
                                             {{"LUMEN_PLUGIN_PATH", (dir.path() / "moved").string()}}));
  for (const auto& [file, truth] : run.truth.at("files").items())
    EXPECT_EQ(rows.at(file).at("values").at("fsynccnt").get<long long>(), truth.at("fsynccnt").get<long long>());
}

TEST(Discovery, ProfilePathIsRelativeToTheProfile) {
  TempDir dir;
  const fs::path plugins = dir.path() / "profiles" / "plugins";
  fs::create_directories(plugins / "fsync");
  fs::copy(kFsyncPlugin, plugins / "fsync");
  std::ofstream(dir.path() / "profiles" / "fsync.yaml") << "description: fsync tracing\nplugins:\n  fsync:\n    path: plugins/fsync\n";
  const FsyncRun run = collect_fsync(dir, {"--profile", (dir.path() / "profiles" / "fsync.yaml").string()});
  ASSERT_EQ(run.run.exit_code, 0) << run.run.err;
  const auto rows = table_rows(er_print_json({"-fsyncs"}, run.experiment));
  for (const auto& [file, truth] : run.truth.at("files").items())
    EXPECT_EQ(rows.at(file).at("values").at("fsynccnt").get<long long>(), truth.at("fsynccnt").get<long long>());
}

TEST(Discovery, ProfilePathToAPluginOfAnotherNameIsAnError) {
  TempDir dir;
  std::ofstream(dir.path() / "wrong.yaml") << "plugins:\n  disk:\n    path: " << kFsyncPlugin.string() << "\n";
  const ProcessResult r = run_process({collect_path(), "--profile", (dir.path() / "wrong.yaml").string(), "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, (dir.path() / "wrong.yaml").string() + ":3: the plugin in " + kFsyncPlugin.string() +
                             " is named 'fsync', not 'disk'");
}

TEST(Discovery, PluginOptionNamingNoPluginIsAnError) {
  TempDir dir;
  const ProcessResult r = run_process({collect_path(), "--plugin", (dir.path() / "absent").string(), "/bin/true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "plugin directory " + (dir.path() / "absent").string() + " does not exist");
}

TEST(Discovery, NeverFromTheCurrentDirectory) {
  TempDir dir;
  fs::create_directories(dir.path() / "fsync");
  fs::copy(kFsyncPlugin, dir.path() / "fsync");
  // Empty entries of LUMEN_PLUGIN_PATH do not mean the current directory.
  const ProcessResult r = run_process({"/bin/sh", "-c", "cd \"$1\" && exec \"$2\" --list-plugins", "sh",
                                       dir.path().string(), collect_path()},
                                      {{"LUMEN_PLUGIN_PATH", "::"}});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("\nfsync "), std::string::npos) << r.out;
  const ProcessResult relative = run_process({"/bin/sh", "-c", "cd \"$1\" && exec \"$2\" --list-plugins", "sh",
                                              dir.path().string(), collect_path()},
                                             {{"LUMEN_PLUGIN_PATH", "."}});
  EXPECT_EQ(relative.exit_code, 2);
  EXPECT_CONTAINS(relative.err, "LUMEN_PLUGIN_PATH entry '.' is not an absolute directory");
}

// Builds a plugin directory NAME under `root` from two files.
void plugin_directory(const fs::path& root, const std::string& name, const fs::path& collector, const fs::path& analysis) {
  fs::create_directories(root / name);
  fs::create_symlink(collector, root / name / "collector.so");
  fs::create_symlink(analysis, root / name / "analysis.so");
}

ProcessResult list_with_path(const fs::path& root) {
  return run_process({collect_path(), "--list-plugins"}, {{"LUMEN_PLUGIN_PATH", root.string()}});
}

TEST(Discovery, APluginNeedingANewerSdkMinorIsNamedWithBothMinors) {
  TempDir dir;
  plugin_directory(dir.path(), "future", LUMEN_TEST_NEWER_MINOR_PLUGIN, LUMEN_TEST_NEWER_MINOR_PLUGIN);
  const ProcessResult r = list_with_path(dir.path());
  EXPECT_EQ(r.exit_code, 2);
  const std::string needed = std::to_string(LUMEN_SDK_VERSION_MINOR + 1);
  EXPECT_CONTAINS(r.err, "plugin " + (dir.path() / "future" / "collector.so").string() + " needs lumen SDK 1." +
                             needed + " (minor version " + needed + "); this lumen offers SDK 1." +
                             std::to_string(LUMEN_SDK_VERSION_MINOR));
}

TEST(Discovery, MissingFactoryNamesTheFile) {
  TempDir dir;
  plugin_directory(dir.path(), "nothing", LUMEN_TEST_NOT_A_PLUGIN, LUMEN_TEST_NOT_A_PLUGIN);
  const ProcessResult r = list_with_path(dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "plugin " + (dir.path() / "nothing" / "collector.so").string() +
                             " has no factory function 'lumen_collector_plugin'");
}

TEST(Discovery, TwoPluginsOfOneNameNameBothFiles) {
  TempDir dir;
  const fs::path shipped = fs::canonical(kPrefix / "lib/lumen/plugins/clock");
  plugin_directory(dir.path(), "clock", shipped / "collector.so", shipped / "analysis.so");
  const ProcessResult r = list_with_path(dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "two plugins are named 'clock': ");
  EXPECT_CONTAINS(r.err, (dir.path() / "clock" / "collector.so").string());
  EXPECT_CONTAINS(r.err, "lib/lumen/plugins/clock/collector.so");
}

TEST(Discovery, TwoPluginsClaimingOneDataFileNameBothFiles) {
  TempDir dir;
  plugin_directory(dir.path(), "samefile", kFixtures / "samefile" / "collector.so",
                   kFixtures / "samefile" / "analysis.so");
  const ProcessResult r = list_with_path(dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "two plugins claim the data file 'profile': ");
  EXPECT_CONTAINS(r.err, "lib/lumen/plugins/clock/analysis.so");
  EXPECT_CONTAINS(r.err, (dir.path() / "samefile" / "analysis.so").string());
}

TEST(Discovery, TwoPluginsDefiningOneMetricKeywordNameBothFiles) {
  TempDir dir;
  plugin_directory(dir.path(), "samekeyword", kFixtures / "samekeyword" / "collector.so",
                   kFixtures / "samekeyword" / "analysis.so");
  const ProcessResult r = list_with_path(dir.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "two plugins define the metric keyword 'user': ");
  EXPECT_CONTAINS(r.err, "lib/lumen/plugins/clock/analysis.so");
  EXPECT_CONTAINS(r.err, (dir.path() / "samekeyword" / "analysis.so").string());
}

}  // namespace
}  // namespace lumen::test
