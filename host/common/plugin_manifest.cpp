#include "plugin_manifest.h"

#include <algorithm>

namespace lumen::host {

namespace {

std::string text(const char* value) { return value != nullptr ? value : ""; }
const char* pointer(const std::string& value) { return value.empty() ? nullptr : value.c_str(); }

}  // namespace

CollectorSpec describe_collector(const lumen_collector_descriptor& d) {
  CollectorSpec spec;
  spec.version = text(d.version);
  spec.description = text(d.description);
  for (size_t i = 0; i < d.option_count; ++i) {
    const lumen_option_def& o = d.options[i];
    spec.options.push_back({text(o.name), o.kind, text(o.default_value), o.min, o.max, o.bare_unit_ns, text(o.help)});
  }
  spec.flag = text(d.flag.flag);
  spec.flag_option = text(d.flag.option);
  spec.flag_help = text(d.flag.help);
  for (size_t i = 0; i < d.flag.alias_count; ++i)
    spec.aliases.push_back({text(d.flag.aliases[i].word), text(d.flag.aliases[i].value)});
  if (const lumen_collector_hooks* hooks = d.host_hooks) {
    if (hooks->check) spec.host_hooks.push_back("check");
    if (hooks->describe_values) spec.host_hooks.push_back("describe_values");
    if (hooks->leave_out) spec.host_hooks.push_back("leave_out");
  }
  spec.works_after_attach = (d.attach & LUMEN_WORKS_AFTER_ATTACH) != 0;
  return spec;
}

AnalysisSpec describe_analysis(const lumen_analysis_descriptor& d) {
  AnalysisSpec spec;
  spec.version = text(d.version);
  for (size_t i = 0; i < d.metric_count; ++i) {
    const lumen_metric_def& m = d.metrics[i];
    spec.metrics.push_back({text(m.keyword), text(m.title), m.unit, m.flavors, text(m.description),
                            m.default_flavors, m.hidden_by_default != 0});
  }
  for (size_t i = 0; i < d.derived_metric_count; ++i) {
    const lumen_derived_metric_def& m = d.derived_metrics[i];
    spec.derived_metrics.push_back(
        {text(m.keyword), text(m.title), text(m.numerator), text(m.denominator), text(m.description)});
  }
  for (size_t i = 0; i < d.view_count; ++i) spec.views.push_back({text(d.views[i].command), text(d.views[i].help)});
  spec.configures = d.configure != nullptr;
  return spec;
}

ManifestData describe_plugin(const lumen_collector_descriptor& collector, const lumen_analysis_descriptor& analysis) {
  if (text(collector.name) != text(analysis.name) || text(collector.data_file) != text(analysis.data_file))
    throw ManifestError("the halves disagree: collector.so is '" + text(collector.name) + "' writing '" +
                        text(collector.data_file) + "', analysis.so is '" + text(analysis.name) + "' reading '" +
                        text(analysis.data_file) + "'");
  ManifestData data;
  if (collector.sdk_major != analysis.sdk_major)
    throw ManifestError("the halves were built against lumen SDK " + std::to_string(collector.sdk_major) + ".x and " +
                        std::to_string(analysis.sdk_major) + ".x");
  data.sdk_major = collector.sdk_major;
  data.sdk_minor = std::max(collector.sdk_minor, analysis.sdk_minor);  // the newer half's needs
  data.name = text(collector.name);
  data.data_file = text(collector.data_file);
  data.collector = describe_collector(collector);
  data.analysis = describe_analysis(analysis);
  return data;
}

namespace {

// The first part of two descriptions that differs, as words for a message.
template <typename Spec>
std::string first_difference(const Spec& manifest, const Spec& loaded);

template <>
std::string first_difference(const CollectorSpec& a, const CollectorSpec& b) {
  if (a.version != b.version) return "its version (" + a.version + " against " + b.version + ")";
  if (a.options != b.options) return "its options";
  if (a.flag != b.flag || a.flag_option != b.flag_option || a.aliases != b.aliases) return "its collect flag";
  if (a.host_hooks != b.host_hooks) return "its host hooks";
  if (a.works_after_attach != b.works_after_attach) return "whether it works after an attach";
  if (a.description != b.description || a.flag_help != b.flag_help) return "its description";
  return "";
}

template <>
std::string first_difference(const AnalysisSpec& a, const AnalysisSpec& b) {
  if (a.version != b.version) return "its version (" + a.version + " against " + b.version + ")";
  if (a.metrics != b.metrics) return "its metrics";
  if (a.derived_metrics != b.derived_metrics) return "its derived metrics";
  if (a.views != b.views) return "its views";
  if (a.configures != b.configures) return "whether it configures each experiment";
  return "";
}

std::string identity_difference(const ManifestData& m, const char* name, const char* data_file) {
  if (m.name != text(name)) return "its name ('" + m.name + "' against '" + text(name) + "')";
  if (m.data_file != text(data_file)) return "its data file ('" + m.data_file + "' against '" + text(data_file) + "')";
  return "";
}

}  // namespace

std::string collector_difference(const ManifestData& manifest, const lumen_collector_descriptor& loaded) {
  const std::string identity = identity_difference(manifest, loaded.name, loaded.data_file);
  return identity.empty() ? first_difference(manifest.collector, describe_collector(loaded)) : identity;
}

std::string analysis_difference(const ManifestData& manifest, const lumen_analysis_descriptor& loaded) {
  const std::string identity = identity_difference(manifest, loaded.name, loaded.data_file);
  return identity.empty() ? first_difference(manifest.analysis, describe_analysis(loaded)) : identity;
}

DescribedPlugin::DescribedPlugin(ManifestData data, std::filesystem::path file)
    : data_(std::move(data)), file_(std::move(file)) {
  const CollectorSpec& c = data_.collector;
  for (const OptionSpec& o : c.options)
    options_.push_back({o.name.c_str(), o.kind, o.default_value.c_str(), o.min, o.max, o.bare_unit_ns, o.help.c_str()});
  for (const AliasSpec& a : c.aliases) aliases_.push_back({a.word.c_str(), a.value.c_str()});
  collector_.size = sizeof collector_;
  collector_.sdk_major = static_cast<uint16_t>(data_.sdk_major);
  collector_.sdk_minor = static_cast<uint16_t>(data_.sdk_minor);
  collector_.name = data_.name.c_str();
  collector_.version = c.version.c_str();
  collector_.data_file = data_.data_file.c_str();
  collector_.description = c.description.c_str();
  collector_.options = options_.data();
  collector_.option_count = options_.size();
  collector_.flag = {pointer(c.flag), pointer(c.flag_option), aliases_.data(), aliases_.size(), pointer(c.flag_help)};
  collector_.attach = c.works_after_attach ? LUMEN_WORKS_AFTER_ATTACH : 0;

  const AnalysisSpec& a = data_.analysis;
  for (const MetricSpec& m : a.metrics)
    metrics_.push_back({m.keyword.c_str(), m.title.c_str(), m.unit, m.flavors, m.description.c_str(),
                        m.default_flavors, m.hidden_by_default ? 1 : 0});
  for (const DerivedMetricSpec& m : a.derived_metrics)
    derived_.push_back(
        {m.keyword.c_str(), m.title.c_str(), m.numerator.c_str(), m.denominator.c_str(), m.description.c_str()});
  for (const ViewSpec& v : a.views) views_.push_back({v.command.c_str(), v.help.c_str(), nullptr});
  analysis_.size = sizeof analysis_;
  analysis_.sdk_major = static_cast<uint16_t>(data_.sdk_major);
  analysis_.sdk_minor = static_cast<uint16_t>(data_.sdk_minor);
  analysis_.name = data_.name.c_str();
  analysis_.version = a.version.c_str();
  analysis_.data_file = data_.data_file.c_str();
  analysis_.metrics = metrics_.data();
  analysis_.metric_count = metrics_.size();
  analysis_.views = views_.data();
  analysis_.view_count = views_.size();
  analysis_.derived_metrics = derived_.data();
  analysis_.derived_metric_count = derived_.size();
}

bool DescribedPlugin::has_hook(const std::string& hook) const {
  const auto& hooks = data_.collector.host_hooks;
  return std::find(hooks.begin(), hooks.end(), hook) != hooks.end();
}

}  // namespace lumen::host
