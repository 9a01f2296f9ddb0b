// A plugin's manifest: manifest.yaml beside collector.so and analysis.so,
// saying what the plugin offers (name, data file, collect flag, options,
// host hooks, metrics, views) without opening either half. It is generated
// at build time from the halves' own descriptors (lumen-describe-plugin,
// run by lumen_add_plugin), so collect can parse flags and plan, and er_print
// can choose which analysis halves an experiment needs, loading only those:
// a broken or hostile plugin no run needs is never opened.
//
// A manifest that no longer matches its half (the .so was rebuilt, the
// manifest was not) is found when that half is loaded (collector_difference,
// analysis_difference) and the plugin is refused.
#pragma once

#include <lumen/analysis_plugin.h>
#include <lumen/collector_plugin.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace lumen::host {

inline constexpr const char* kManifestFile = "manifest.yaml";

// A manifest that cannot be read; what() is "FILE:LINE: problem".
struct ManifestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct OptionSpec {
  std::string name;
  lumen_option_kind kind = LUMEN_OPTION_STRING;
  std::string default_value;
  int64_t min = 0, max = 0, bare_unit_ns = 0;
  std::string help;
  bool operator==(const OptionSpec&) const = default;
};

struct AliasSpec {
  std::string word, value;
  bool operator==(const AliasSpec&) const = default;
};

struct MetricSpec {
  std::string keyword, title;
  lumen_metric_unit unit = LUMEN_UNIT_COUNT;
  uint32_t flavors = 0;
  std::string description;
  uint32_t default_flavors = 0;  // 0: all of `flavors`
  bool hidden_by_default = false;
  bool operator==(const MetricSpec&) const = default;
};

struct DerivedMetricSpec {
  std::string keyword, title, numerator, denominator, description;
  bool operator==(const DerivedMetricSpec&) const = default;
};

struct ViewSpec {
  std::string command, help;
  bool operator==(const ViewSpec&) const = default;
};

struct CollectorSpec {
  std::string version, description;
  std::vector<OptionSpec> options;
  std::string flag, flag_option, flag_help;  // flag empty: the plugin owns none
  std::vector<AliasSpec> aliases;
  std::vector<std::string> host_hooks;  // of "check", "describe_values", "leave_out"
  bool works_after_attach = false;  // LUMEN_WORKS_AFTER_ATTACH: collect -P may use it
  bool operator==(const CollectorSpec&) const = default;
};

struct AnalysisSpec {
  std::string version;
  std::vector<MetricSpec> metrics;
  std::vector<DerivedMetricSpec> derived_metrics;
  std::vector<ViewSpec> views;
  bool configures = false;  // declares each experiment's metrics (configure)
  bool operator==(const AnalysisSpec&) const = default;
};

struct ManifestData {
  uint32_t sdk_major = LUMEN_SDK_VERSION_MAJOR;  // the SDK the plugin was built against
  uint32_t sdk_minor = LUMEN_SDK_VERSION_MINOR;
  std::string name, data_file;
  CollectorSpec collector;
  AnalysisSpec analysis;
};

// What the two halves' descriptors say. Throws ManifestError when they
// disagree on name or data file.
ManifestData describe_plugin(const lumen_collector_descriptor& collector, const lumen_analysis_descriptor& analysis);
CollectorSpec describe_collector(const lumen_collector_descriptor& collector);
AnalysisSpec describe_analysis(const lumen_analysis_descriptor& analysis);

// The manifest's text (YAML), and reading it back. read_manifest throws
// ManifestError naming the file and line of the first problem (not YAML, a
// missing or mistyped key, a value of the wrong kind, an SDK version this
// lumen does not load).
std::string manifest_text(const ManifestData& manifest);
ManifestData read_manifest(const std::filesystem::path& file);

// Empty when the loaded half says what the manifest says; else a sentence
// naming what differs ("its options", "its views", ...).
std::string collector_difference(const ManifestData& manifest, const lumen_collector_descriptor& loaded);
std::string analysis_difference(const ManifestData& manifest, const lumen_analysis_descriptor& loaded);

// A manifest as the descriptors collect and er_print read before any half is
// loaded: every field a manifest describes is set; functions (start, decode,
// views' run, host hooks) are NULL. Pointers stay valid while this lives;
// it neither copies nor moves.
class DescribedPlugin {
 public:
  DescribedPlugin(ManifestData data, std::filesystem::path file);
  DescribedPlugin(const DescribedPlugin&) = delete;
  DescribedPlugin& operator=(const DescribedPlugin&) = delete;

  const ManifestData& data() const { return data_; }
  const std::filesystem::path& file() const { return file_; }
  const lumen_collector_descriptor* collector() const { return &collector_; }
  const lumen_analysis_descriptor* analysis() const { return &analysis_; }
  bool has_hook(const std::string& hook) const;

 private:
  ManifestData data_;
  std::filesystem::path file_;
  std::vector<lumen_option_def> options_;
  std::vector<lumen_flag_alias> aliases_;
  std::vector<lumen_metric_def> metrics_;
  std::vector<lumen_derived_metric_def> derived_;
  std::vector<lumen_view_def> views_;
  lumen_collector_descriptor collector_{};
  lumen_analysis_descriptor analysis_{};
};

}  // namespace lumen::host
