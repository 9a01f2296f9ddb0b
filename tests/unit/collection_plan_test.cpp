// Resolving a collection plan from a profile and -p flags against the real
// clock plugin from the build tree; loading plugin halves, and the SDK
// version rule they are loaded by.
#include <gtest/gtest.h>
#include <lumen/analysis_plugin.h>

#include <csignal>
#include <cstddef>

#include "plan_resolution.h"
#include "sdk_compatibility.h"
#include "test_support.h"

namespace lumen::test {
namespace {

namespace fs = std::filesystem;
using collect::CollectionPlan;
using collect::CollectRequest;
using collect::InstalledPlugin;
using collect::ProfileError;
using collect::UsageError;
using host::PluginError;

const fs::path kPluginDir = LUMEN_TEST_PLUGIN_DIR;
const fs::path kClockCollector = LUMEN_TEST_CLOCK_COLLECTOR;
const fs::path kClockAnalysis = LUMEN_TEST_CLOCK_ANALYSIS;

using Options = std::vector<std::pair<std::string, std::string>>;

class Plan : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    installed_ = new std::map<std::string, InstalledPlugin>;
    const host::PluginDirectory files{"clock", kClockCollector.parent_path()};
    installed_->emplace("clock", InstalledPlugin{files, host::load_collector_half(files.collector_path()),
                                                 host::load_analysis_half(files.analysis_path()), nullptr, nullptr});
  }
  static void TearDownTestSuite() {
    delete installed_;
    installed_ = nullptr;
  }

  collect::Profile profile(const std::string& text) {
    return collect::read_profile(write_text(dir_ / "plan.yaml", text).string());
  }
  CollectionPlan resolve(const collect::Profile& p, std::vector<std::pair<std::string, std::string>> flags = {}) {
    CollectRequest request;
    request.plugin_flags = std::move(flags);
    request.target = {"prog"};
    return collect::resolve_plan(p, request, *installed_);
  }
  // The clock's canonical interval with the default profile and `-p value`.
  std::string interval_for_flag(const std::string& value) {
    const CollectionPlan plan = resolve(profile(kDefaultProfile), {{"p", value}});
    EXPECT_EQ(plan.plugins.size(), 1u);
    if (plan.plugins.empty()) return "";
    EXPECT_EQ(plan.plugins[0].options.size(), 2u);  // interval, kernel_frames
    return plan.plugins[0].options.at(0).second;
  }
  std::string profile_error(const std::string& text) {
    const collect::Profile p = profile(text);
    std::string message;
    EXPECT_THROW_MESSAGE(resolve(p), ProfileError, message);
    return message;
  }
  std::string path() const { return (dir_ / "plan.yaml").string(); }

  static constexpr const char* kDefaultProfile = "plugins:\n  clock:\n    interval: 10ms\n";
  static std::map<std::string, InstalledPlugin>* installed_;
  TempDir dir_;
};
std::map<std::string, InstalledPlugin>* Plan::installed_ = nullptr;

TEST_F(Plan, ProfileOptionsBecomeCanonical) {
  const CollectionPlan plan = resolve(profile("description: d\nplugins:\n  clock:\n    interval: 5ms\n"));
  EXPECT_EQ(plan.profile_path, path());
  ASSERT_EQ(plan.plugins.size(), 1u);
  const collect::PlannedPlugin& clock = plan.plugins[0];
  EXPECT_EQ(clock.name, "clock");
  EXPECT_EQ(clock.version, "1.2");
  EXPECT_EQ(clock.data_file, "profile");
  EXPECT_EQ(clock.collector_path, kClockCollector);
  EXPECT_EQ(clock.options, (Options{{"interval", "5000000"}, {"kernel_frames", "1"}}));
}

TEST_F(Plan, DefaultsApplyWhenAPluginHasNoOptions) {
  EXPECT_EQ(resolve(profile("plugins:\n  clock:\n")).plugins.at(0).options, (Options{{"interval", "10000000"}, {"kernel_frames", "1"}}));
  EXPECT_EQ(resolve(profile("plugins:\n  clock:\n    interval: 20\n")).plugins.at(0).options,
            (Options{{"interval", "20000000"}, {"kernel_frames", "1"}}));  // a number alone is in ms
}

TEST_F(Plan, EmptyProfileMeansNoPlugins) { EXPECT_TRUE(resolve(profile("")).plugins.empty()); }

TEST_F(Plan, FlagAliasesAndValues) {
  EXPECT_EQ(interval_for_flag("hi"), "1000000");
  EXPECT_EQ(interval_for_flag("on"), "10000000");
  EXPECT_EQ(interval_for_flag("lo"), "100000000");
  EXPECT_EQ(interval_for_flag("5"), "5000000");
  EXPECT_EQ(interval_for_flag("500u"), "500000");
  EXPECT_EQ(interval_for_flag("2.5ms"), "2500000");
  EXPECT_EQ(interval_for_flag("1s"), "1000000000");
}

TEST_F(Plan, FlagOffRemovesThePlugin) {
  EXPECT_TRUE(resolve(profile(kDefaultProfile), {{"p", "off"}}).plugins.empty());
  // Flags apply in order: a later -p turns it back on.
  const CollectionPlan plan = resolve(profile(kDefaultProfile), {{"p", "off"}, {"p", "hi"}});
  ASSERT_EQ(plan.plugins.size(), 1u);
  EXPECT_EQ(plan.plugins[0].options, (Options{{"interval", "1000000"}, {"kernel_frames", "1"}}));
}

TEST_F(Plan, FlagEnablesAPluginTheProfileLacks) {
  const CollectionPlan plan = resolve(profile("description: empty\n"), {{"p", "lo"}});
  ASSERT_EQ(plan.plugins.size(), 1u);
  EXPECT_EQ(plan.plugins[0].options, (Options{{"interval", "100000000"}, {"kernel_frames", "1"}}));
}

// -k sets the clock plugin's kernel_frames where clock profiling is
// planned, and never plans it by itself.
TEST_F(Plan, KernelFramesFlagSetsTheClocksOptionWithoutTurningItOn) {
  CollectRequest request;
  request.target = {"prog"};
  request.plugin_options = {{"p", "kernel_frames", "off", "-k", false}};
  const CollectionPlan with_clock = collect::resolve_plan(profile(kDefaultProfile), request, *installed_, nullptr);
  ASSERT_EQ(with_clock.plugins.size(), 1u);
  EXPECT_EQ(with_clock.plugins[0].options, (Options{{"interval", "10000000"}, {"kernel_frames", "0"}}));
  request.plugin_flags = {{"p", "off"}};
  EXPECT_TRUE(collect::resolve_plan(profile(kDefaultProfile), request, *installed_, nullptr).plugins.empty());
  request.plugin_options[0].value = "sometimes";
  request.plugin_flags.clear();
  std::string message;
  EXPECT_THROW_MESSAGE(collect::resolve_plan(profile(kDefaultProfile), request, *installed_, nullptr), UsageError,
                       message);
  EXPECT_CONTAINS(message, "-k: 'sometimes' is not on or off");
}

TEST_F(Plan, OriginsNameTheFlagOverTheProfileLine) {
  CollectRequest request;
  request.target = {"prog"};
  collect::PlanOrigins origins;
  collect::resolve_plan(profile("plugins:\n  clock:\n    interval: 5ms\n"), request, *installed_, &origins);
  EXPECT_EQ(origins, (collect::PlanOrigins{{"clock", path() + ":3"}}));
  request.plugin_flags = {{"p", "hi"}};
  origins.clear();
  collect::resolve_plan(profile("plugins:\n  clock:\n    interval: 5ms\n"), request, *installed_, &origins);
  EXPECT_EQ(origins, (collect::PlanOrigins{{"clock", "-p"}}));
}

TEST_F(Plan, BadFlagValueIsAUsageError) {
  const collect::Profile p = profile(kDefaultProfile);
  std::string message;
  EXPECT_THROW_MESSAGE((resolve(p, {{"p", "bogus"}})), UsageError, message);
  EXPECT_CONTAINS(message, "-p: 'bogus' is not a duration");
  EXPECT_THROW_MESSAGE((resolve(p, {{"p", "50u"}})), UsageError, message);
  EXPECT_CONTAINS(message, "-p: '50u' is out of range: a duration from 100us to 10s");
}

TEST_F(Plan, UnknownPluginNamesFileLineAndInstalledPlugins) {
  const std::string message = profile_error("description: x\nplugins:\n  clock: {}\n  nosuch:\n    a: 1\n");
  EXPECT_EQ(message, path() + ":4: unknown plugin 'nosuch'; installed: clock");
}

TEST_F(Plan, UnknownOptionNamesTheAllowedOptions) {
  const std::string message = profile_error("plugins:\n  clock:\n    interval: 1ms\n    rate: 5\n");
  EXPECT_EQ(message, path() + ":4: unknown option 'rate' for plugin 'clock'; allowed: interval, kernel_frames");
}

TEST_F(Plan, BadDurationNamesFileLineAndRange) {
  const std::string message = profile_error("plugins:\n  clock:\n    interval: 5 parsecs\n");
  EXPECT_EQ(message, path() +
                         ":3: option 'interval' of plugin 'clock': '5 parsecs' is not a duration from 100us to 10s "
                         "(suffix s, ms, us or ns; a number alone is in ms)");
  const std::string range = profile_error("plugins:\n  clock:\n    interval: 20s\n");
  EXPECT_CONTAINS(range, path() + ":3: option 'interval' of plugin 'clock': '20s' is out of range");
  EXPECT_CONTAINS(range, "from 100us to 10s");
}

TEST_F(Plan, WritesTheRuntimePlan) {
  const CollectionPlan plan = resolve(profile(kDefaultProfile), {{"p", "hi"}});
  collect::write_runtime_plan(plan, dir_ / "collector.plan");
  EXPECT_EQ(read_text(dir_ / "collector.plan"),
            "lumen-plan 2\nprofile " + (dir_ / "plan.yaml").string() +
                "\nfollow on\nsamples 1000000000\norigin_ns 0\narchive on\nplugin clock 1.2 profile " +
                kClockCollector.string() + "\noption interval 1000000\noption kernel_frames 1\n");
  EXPECT_THROW(collect::write_runtime_plan(plan, dir_ / "missing" / "collector.plan"), std::runtime_error);
}

TEST_F(Plan, RuntimeSettingsComeFromTheRequest) {
  CollectRequest request;
  request.target = {"prog"};
  request.runtime.sample_period_ns = 250'000'000;
  request.runtime.sample_signal = SIGUSR1;
  request.runtime.pause_signal = SIGUSR2;
  request.runtime.start_paused = true;
  request.runtime.window_start_ns = 2'000'000'000;
  request.runtime.window_end_ns = 5'000'000'000;
  request.runtime.size_limit_bytes = 3 << 20;
  CollectionPlan plan = collect::resolve_plan(profile(kDefaultProfile), request, *installed_);
  plan.origin_ns = 42;
  collect::write_runtime_plan(plan, dir_ / "collector.plan");
  const std::string text = read_text(dir_ / "collector.plan");
  EXPECT_CONTAINS(text, "\nsamples 250000000\n");
  EXPECT_CONTAINS(text, "\nsample_signal " + std::to_string(SIGUSR1) + "\n");
  EXPECT_CONTAINS(text, "\npause_signal " + std::to_string(SIGUSR2) + " paused\n");
  EXPECT_CONTAINS(text, "\nwindow 2000000000 5000000000\n");
  EXPECT_CONTAINS(text, "\norigin_ns 42\n");
  EXPECT_CONTAINS(text, "\nsize_limit 3145728\n");
}

TEST_F(Plan, FollowComesFromTheRequest) {
  const collect::Profile p = profile(kDefaultProfile);
  EXPECT_EQ(resolve(p).follow, "on");
  CollectRequest request;
  request.follow = "=^worker";
  request.target = {"prog"};
  const CollectionPlan plan = collect::resolve_plan(p, request, *installed_);
  EXPECT_EQ(plan.follow, "=^worker");
  collect::write_runtime_plan(plan, dir_ / "collector.plan");
  EXPECT_CONTAINS(read_text(dir_ / "collector.plan"), "\nfollow =^worker\n");
}

// ---- loading plugin halves ----

std::string plugin_error(const std::function<void()>& load) {
  std::string message;
  EXPECT_THROW_MESSAGE(load(), PluginError, message);
  return message;
}

TEST(PluginCatalog, LoadsTheClockPlugin) {
  const host::CollectorHalf collector = host::load_collector_half(kClockCollector);
  ASSERT_NE(collector.descriptor, nullptr);
  EXPECT_EQ(collector.path, kClockCollector);
  EXPECT_STREQ(collector.descriptor->name, "clock");
  EXPECT_STREQ(collector.descriptor->data_file, "profile");
  EXPECT_STREQ(collector.descriptor->flag.flag, "p");
  ASSERT_EQ(collector.descriptor->option_count, 2u);
  EXPECT_STREQ(collector.descriptor->options[0].name, "interval");
  EXPECT_STREQ(collector.descriptor->options[1].name, "kernel_frames");
  const host::AnalysisHalf analysis = host::load_analysis_half(kClockAnalysis);
  ASSERT_NE(analysis.descriptor, nullptr);
  EXPECT_STREQ(analysis.descriptor->name, "clock");
  ASSERT_EQ(analysis.descriptor->metric_count, 3u);
  EXPECT_STREQ(analysis.descriptor->metrics[0].keyword, "totalcpu");
  EXPECT_STREQ(analysis.descriptor->metrics[1].keyword, "user");
  EXPECT_STREQ(analysis.descriptor->metrics[2].keyword, "system");
}

TEST(PluginCatalog, SharedObjectWithoutAFactoryIsNamed) {
  const std::string message = plugin_error([] { host::load_collector_half(LUMEN_TEST_NOT_A_PLUGIN); });
  EXPECT_EQ(message, std::string("plugin ") + LUMEN_TEST_NOT_A_PLUGIN +
                         " has no factory function 'lumen_collector_plugin'");
  // A collector half is not an analysis half.
  const std::string other = plugin_error([] { host::load_analysis_half(kClockCollector); });
  EXPECT_EQ(other, "plugin " + kClockCollector.string() + " has no factory function 'lumen_analysis_plugin'");
}

TEST(PluginCatalog, FileThatIsNotASharedObjectIsNamed) {
  TempDir dir;
  const fs::path text = write_text(dir / "collector.so", "not an ELF file\n");
  const std::string message = plugin_error([&] { host::load_collector_half(text); });
  EXPECT_CONTAINS(message, "cannot load plugin " + text.string());
  const std::string missing = plugin_error([&] { host::load_collector_half(dir / "absent.so"); });
  EXPECT_CONTAINS(missing, "cannot load plugin " + (dir / "absent.so").string());
}

// ---- the SDK version rule: same major, the plugin's minor at most ours ----

TEST(SdkVersionRule, AnOlderOrEqualMinorOfTheSameMajorLoads) {
  EXPECT_EQ(metadata::sdk_refusal("p", {1, 0}, {1, 3}), "");
  EXPECT_EQ(metadata::sdk_refusal("p", {1, 3}, {1, 3}), "");
}

TEST(SdkVersionRule, ANewerMinorIsRefusedNamingThePluginAndBothMinors) {
  EXPECT_EQ(metadata::sdk_refusal("heap (/x/collector.so)", {1, 4}, {1, 3}),
            "plugin heap (/x/collector.so) needs lumen SDK 1.4 (minor version 4); this lumen offers SDK 1.3 "
            "(minor version 3): use a newer lumen, or build the plugin against this SDK");
}

TEST(SdkVersionRule, AnotherMajorIsRefusedEitherWay) {
  EXPECT_EQ(metadata::sdk_refusal("p", {2, 0}, {1, 3}),
            "plugin p was built against lumen SDK 2.0, of major version 2; this lumen offers SDK 1.3: rebuild the "
            "plugin against this lumen's SDK");
  EXPECT_NE(metadata::sdk_refusal("p", {0, 9}, {1, 3}), "");
}

// What a host hands a plugin is read the same way from the plugin's side:
// a member past the struct's size, or NULL, is absent, and the helpers do
// not call it.
TEST(SdkVersionRule, APluginAsksWhetherAHostHasAMember) {
  struct Drawn {
    int spans = 0;
  } drawn;
  lumen_event_sink sink{};
  sink.size = sizeof sink;
  sink.context = &drawn;
  sink.span = [](void* context, const lumen_span*) { ++static_cast<Drawn*>(context)->spans; };
  EXPECT_TRUE(LUMEN_PROVIDES(&sink, span));
  EXPECT_FALSE(LUMEN_PROVIDES(&sink, level));
  lumen_emit_span(&sink, "region", 1, 10, 20, LUMEN_NO_STACK);
  lumen_emit_level(&sink, "bytes", LUMEN_UNIT_BYTES, 10, 1);  // absent: not called
  EXPECT_EQ(drawn.spans, 1);
  sink.size = offsetof(lumen_event_sink, span);  // a host of a minor before span
  EXPECT_FALSE(LUMEN_PROVIDES(&sink, span));
  lumen_emit_span(&sink, "region", 1, 10, 20, LUMEN_NO_STACK);
  EXPECT_EQ(drawn.spans, 1);
  const lumen_event_sink* none = nullptr;
  EXPECT_FALSE(LUMEN_PROVIDES(none, emit));
}

TEST(PluginCatalog, APluginNeedingANewerMinorIsRefusedByName) {
  const std::string minor = std::to_string(LUMEN_SDK_VERSION_MINOR);
  const std::string needed = std::to_string(LUMEN_SDK_VERSION_MINOR + 1);
  for (auto load : {+[] { host::load_collector_half(LUMEN_TEST_NEWER_MINOR_PLUGIN); },
                    +[] { host::load_analysis_half(LUMEN_TEST_NEWER_MINOR_PLUGIN); }}) {
    const std::string message = plugin_error(load);
    EXPECT_CONTAINS(message, std::string("plugin ") + LUMEN_TEST_NEWER_MINOR_PLUGIN + " needs lumen SDK 1." + needed);
    EXPECT_CONTAINS(message, "(minor version " + needed + "); this lumen offers SDK 1." + minor + " (minor version " +
                                 minor + ")");
  }
}

TEST(PluginCatalog, APluginOfAnotherMajorIsRefusedByName) {
  const std::string message = plugin_error([] { host::load_analysis_half(LUMEN_TEST_OTHER_MAJOR_PLUGIN); });
  EXPECT_CONTAINS(message, std::string("plugin ") + LUMEN_TEST_OTHER_MAJOR_PLUGIN + " was built against lumen SDK " +
                               std::to_string(LUMEN_SDK_VERSION_MAJOR + 1) + ".0");
  EXPECT_CONTAINS(message, "this lumen offers SDK " + std::to_string(LUMEN_SDK_VERSION_MAJOR) + ".");
}

// A descriptor whose size ends before members this lumen knows (an older
// minor's) loads; what lies past its size is absent, whatever it holds.
TEST(PluginCatalog, MembersPastASmallerDescriptorsSizeAreAbsent) {
  const host::AnalysisHalf analysis = host::load_analysis_half(LUMEN_TEST_SMALLER_DESCRIPTOR_PLUGIN);
  EXPECT_STREQ(analysis.descriptor->name, "older");
  EXPECT_EQ(analysis.descriptor->sdk_minor, 0u);
  EXPECT_NE(analysis.descriptor->decode, nullptr);
  EXPECT_EQ(analysis.descriptor->decodes_in_parts, 1);
  EXPECT_EQ(analysis.descriptor->views, nullptr);
  EXPECT_EQ(analysis.descriptor->view_count, 0u);
  EXPECT_EQ(analysis.descriptor->fold_stack, nullptr);
  EXPECT_EQ(analysis.descriptor->interval_split_count, 0u);
  EXPECT_EQ(host::describe_analysis(*analysis.descriptor).views.size(), 0u);

  const host::CollectorHalf collector = host::load_collector_half(LUMEN_TEST_SMALLER_DESCRIPTOR_PLUGIN);
  EXPECT_NE(collector.descriptor->start, nullptr);
  EXPECT_EQ(collector.descriptor->fork_child, nullptr);
  EXPECT_EQ(collector.descriptor->host_hooks, nullptr);
  EXPECT_TRUE(host::describe_collector(*collector.descriptor).host_hooks.empty());
}

TEST(PluginCatalog, HooksAreReadAtTheirOwnSize) {
  const host::CollectorHalf collector = host::load_collector_half(LUMEN_TEST_SMALLER_HOOKS_PLUGIN);
  EXPECT_NE(collector.descriptor->fork_child, nullptr);
  ASSERT_NE(collector.descriptor->host_hooks, nullptr);
  EXPECT_NE(collector.descriptor->host_hooks->check, nullptr);
  EXPECT_EQ(collector.descriptor->host_hooks->describe_values, nullptr);
  EXPECT_EQ(host::describe_collector(*collector.descriptor).host_hooks, std::vector<std::string>{"check"});
}

TEST(PluginCatalog, FactoryReturningNothing) {
  const std::string message = plugin_error([] { host::load_collector_half(LUMEN_TEST_NULL_FACTORY_PLUGIN); });
  EXPECT_EQ(message, std::string("plugin ") + LUMEN_TEST_NULL_FACTORY_PLUGIN + ": its factory returned nothing");
}

TEST(PluginCatalog, APluginMayDeclareAnyNumberOfMetrics) {
  const host::AnalysisHalf half = host::load_analysis_half(LUMEN_TEST_MANY_METRICS_PLUGIN);
  ASSERT_EQ(half.descriptor->metric_count, 12u);
  EXPECT_STREQ(half.descriptor->metrics[11].keyword, "many11");
}

TEST(PluginCatalog, FindsPluginDirectoriesSortedByName) {
  TempDir dir;
  fs::create_directory(dir / "zeta");
  fs::create_directory(dir / "alpha");
  write_text(dir / "README", "not a plugin directory\n");
  const auto found = host::find_plugin_directories(dir.path());
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].name, "alpha");
  EXPECT_EQ(found[0].collector_path(), dir / "alpha" / "collector.so");
  EXPECT_EQ(found[1].name, "zeta");
  EXPECT_EQ(found[1].analysis_path(), dir / "zeta" / "analysis.so");
  EXPECT_TRUE(host::find_plugin_directories(dir / "absent").empty());
}

TEST(PluginCatalog, LoadsTheInstalledPlugins) {
  const auto installed = collect::load_installed_plugins(kPluginDir);
  ASSERT_EQ(installed.count("clock"), 1u);
  EXPECT_STREQ(installed.at("clock").collector.descriptor->name, "clock");
  EXPECT_STREQ(installed.at("clock").analysis.descriptor->name, "clock");
  EXPECT_EQ(installed.at("clock").files.collector_path(), kClockCollector);
}

TEST(PluginCatalog, HalvesThatDisagreeAreRefused) {
  TempDir dir;
  fs::create_directory(dir / "clock");
  fs::create_symlink(kClockCollector, dir / "clock" / "collector.so");
  fs::create_symlink(LUMEN_TEST_MISMATCHED_ANALYSIS_PLUGIN, dir / "clock" / "analysis.so");
  const std::string message = plugin_error([&] { collect::load_installed_plugins(dir.path()); });
  EXPECT_CONTAINS(message, "plugin halves disagree");
  EXPECT_CONTAINS(message, (dir / "clock" / "collector.so").string() + " is 'clock' writing 'profile'");
  EXPECT_CONTAINS(message, (dir / "clock" / "analysis.so").string() + " is 'clock' reading 'not-profile'");
}

TEST(PluginCatalog, PluginDirectoryWithoutItsHalvesIsAnError) {
  TempDir dir;
  fs::create_directory(dir / "empty");
  const std::string message = plugin_error([&] { collect::load_installed_plugins(dir.path()); });
  EXPECT_CONTAINS(message, "cannot load plugin " + (dir / "empty" / "collector.so").string());
}

// LUMEN_PLUGIN_PATH: a directory that holds other things than plugins is
// passed over, not a reason to refuse to run; one that everyone may write
// to gives no plugin at all (anyone could have put a library there).
TEST(PluginCatalog, SearchPathSkipsWhatIsNotAPluginAndWorldWritableDirectories) {
  TempDir dir;
  fs::create_directories(dir / "plugins" / "clock");
  for (const char* half : {"collector.so", "analysis.so"})
    fs::copy_file(std::string(LUMEN_TEST_PLUGIN_DIR) + "/clock/" + half, dir / "plugins" / "clock" / half);
  fs::create_directories(dir / "plugins" / "docs");
  const auto found = host::find_plugin_directories(dir / "plugins", host::PluginOrigin::SearchPath);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].name, "clock");
  fs::permissions(dir / "plugins", fs::perms::others_write, fs::perm_options::add);
  EXPECT_TRUE(host::find_plugin_directories(dir / "plugins", host::PluginOrigin::SearchPath).empty());
}

}  // namespace
}  // namespace lumen::test
