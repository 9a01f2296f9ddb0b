// manifest.yaml: writing what the descriptors say, and reading it back with
// the file and line of any problem.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "plugin_manifest.h"
#include "sdk_compatibility.h"

namespace lumen::host {

namespace {

const std::map<lumen_option_kind, std::string> kKinds = {{LUMEN_OPTION_DURATION, "duration"},
                                                         {LUMEN_OPTION_INTEGER, "integer"},
                                                         {LUMEN_OPTION_STRING, "string"},
                                                         {LUMEN_OPTION_BOOLEAN, "boolean"}};
const std::map<lumen_metric_unit, std::string> kUnits = {{LUMEN_UNIT_NANOSECONDS, "nanoseconds"},
                                                         {LUMEN_UNIT_COUNT, "count"},
                                                         {LUMEN_UNIT_BYTES, "bytes"},
                                                         {LUMEN_UNIT_RATIO, "ratio"}};
const char* const kHooks[] = {"check", "describe_values", "leave_out"};

template <typename Enum>
std::string word_of(const std::map<Enum, std::string>& words, Enum value) {
  const auto it = words.find(value);
  return it != words.end() ? it->second : std::to_string(static_cast<int>(value));
}

void emit_map(YAML::Emitter& out, const std::vector<std::pair<const char*, std::string>>& fields) {
  out << YAML::BeginMap;
  for (const auto& [key, value] : fields)
    if (!value.empty()) out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
  out << YAML::EndMap;
}

}  // namespace

std::string manifest_text(const ManifestData& m) {
  YAML::Emitter out;
  out << YAML::Comment("Generated from collector.so and analysis.so by lumen-describe-plugin; do not edit.");
  out << YAML::BeginMap;
  out << YAML::Key << "manifest" << YAML::Value << 1;
  out << YAML::Key << "sdk_major" << YAML::Value << m.sdk_major;
  out << YAML::Key << "sdk_minor" << YAML::Value << m.sdk_minor;
  out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << m.name;
  out << YAML::Key << "data_file" << YAML::Value << YAML::DoubleQuoted << m.data_file;

  const CollectorSpec& c = m.collector;
  out << YAML::Key << "collector" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << YAML::DoubleQuoted << c.version;
  out << YAML::Key << "description" << YAML::Value << YAML::DoubleQuoted << c.description;
  if (!c.flag.empty()) {
    out << YAML::Key << "flag" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << c.flag;
    out << YAML::Key << "option" << YAML::Value << YAML::DoubleQuoted << c.flag_option;
    out << YAML::Key << "help" << YAML::Value << YAML::DoubleQuoted << c.flag_help;
    out << YAML::Key << "aliases" << YAML::Value << YAML::BeginSeq;
    for (const AliasSpec& a : c.aliases) emit_map(out, {{"word", a.word}, {"value", a.value}});
    out << YAML::EndSeq << YAML::EndMap;
  }
  out << YAML::Key << "options" << YAML::Value << YAML::BeginSeq;
  for (const OptionSpec& o : c.options) {
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << o.name;
    out << YAML::Key << "kind" << YAML::Value << word_of(kKinds, o.kind);
    out << YAML::Key << "default" << YAML::Value << YAML::DoubleQuoted << o.default_value;
    out << YAML::Key << "min" << YAML::Value << o.min << YAML::Key << "max" << YAML::Value << o.max;
    out << YAML::Key << "bare_unit_ns" << YAML::Value << o.bare_unit_ns;
    out << YAML::Key << "help" << YAML::Value << YAML::DoubleQuoted << o.help;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "host_hooks" << YAML::Value << YAML::Flow << c.host_hooks;
  out << YAML::Key << "works_after_attach" << YAML::Value << c.works_after_attach;
  out << YAML::EndMap;

  const AnalysisSpec& a = m.analysis;
  out << YAML::Key << "analysis" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << YAML::DoubleQuoted << a.version;
  out << YAML::Key << "metrics" << YAML::Value << YAML::BeginSeq;
  for (const MetricSpec& metric : a.metrics) {
    out << YAML::BeginMap;
    out << YAML::Key << "keyword" << YAML::Value << YAML::DoubleQuoted << metric.keyword;
    out << YAML::Key << "title" << YAML::Value << YAML::DoubleQuoted << metric.title;
    out << YAML::Key << "unit" << YAML::Value << word_of(kUnits, metric.unit);
    out << YAML::Key << "flavors" << YAML::Value << metric.flavors;
    out << YAML::Key << "description" << YAML::Value << YAML::DoubleQuoted << metric.description;
    out << YAML::Key << "default_flavors" << YAML::Value << metric.default_flavors;
    out << YAML::Key << "hidden_by_default" << YAML::Value << metric.hidden_by_default;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "derived_metrics" << YAML::Value << YAML::BeginSeq;
  for (const DerivedMetricSpec& d : a.derived_metrics)
    emit_map(out, {{"keyword", d.keyword}, {"title", d.title}, {"numerator", d.numerator},
                   {"denominator", d.denominator}, {"description", d.description}});
  out << YAML::EndSeq;
  out << YAML::Key << "views" << YAML::Value << YAML::BeginSeq;
  for (const ViewSpec& v : a.views) emit_map(out, {{"command", v.command}, {"help", v.help}});
  out << YAML::EndSeq;
  out << YAML::Key << "configures" << YAML::Value << a.configures;
  out << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

namespace {

// Reads one manifest, every problem a ManifestError at the node's line.
class ManifestReader {
 public:
  explicit ManifestReader(std::filesystem::path file) : file_(std::move(file)) {}

  ManifestData read() {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file_, ec)) throw ManifestError(file_.string() + ":1: not a regular file");
    std::ifstream in(file_);
    if (!in) throw ManifestError(file_.string() + ":1: cannot be read");
    std::stringstream buffer;
    buffer << in.rdbuf();
    YAML::Node root;
    try {
      root = YAML::Load(buffer.str());
    } catch (const YAML::Exception& e) {
      throw ManifestError(file_.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    }
    if (!root.IsMap()) fail(root, "a manifest is a map of keys (manifest, name, data_file, collector, analysis)");
    try {
      return read_root(root);
    } catch (const YAML::Exception& e) {
      // A shape the checks below did not foresee is still this file's error.
      throw ManifestError(file_.string() + ":" + std::to_string(std::max(e.mark.line + 1, 1)) + ": " + e.msg);
    }
  }

 private:
  ManifestData read_root(const YAML::Node& root) const {
    ManifestData m;
    if (number<int>(root, "manifest") != 1) fail(root["manifest"], "manifest format version other than 1");
    m.sdk_major = number<uint32_t>(root, "sdk_major");
    m.sdk_minor = number<uint32_t>(root, "sdk_minor");
    m.name = word(root, "name", true);
    if (const std::string refusal = metadata::sdk_refusal(m.name, {m.sdk_major, m.sdk_minor}); !refusal.empty())
      fail(root[m.sdk_major != LUMEN_SDK_VERSION_MAJOR ? "sdk_major" : "sdk_minor"], refusal);
    m.data_file = word(root, "data_file", true);
    read_collector(section(root, "collector"), m.collector);
    read_analysis(section(root, "analysis"), m.analysis);
    return m;
  }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& problem) const {
    const int line = node.IsDefined() && node.Mark().line >= 0 ? node.Mark().line + 1 : 1;
    throw ManifestError(file_.string() + ":" + std::to_string(line) + ": " + problem);
  }

  YAML::Node section(const YAML::Node& map, const char* key) const {
    const YAML::Node node = map[key];
    if (!node) fail(map, std::string("no '") + key + "'");
    if (!node.IsMap()) fail(node, std::string("'") + key + "' is not a map");
    return node;
  }

  YAML::Node list(const YAML::Node& map, const char* key) const {
    const YAML::Node node = map[key];
    if (!node) return YAML::Node(YAML::NodeType::Sequence);
    if (!node.IsSequence()) fail(node, std::string("'") + key + "' is not a list");
    return node;
  }

  std::string word(const YAML::Node& map, const char* key, bool required = false) const {
    const YAML::Node node = map[key];
    if (!node) {
      if (required) fail(map, std::string("no '") + key + "'");
      return "";
    }
    if (!node.IsScalar()) fail(node, std::string("'") + key + "' is not a single value");
    return node.Scalar();
  }

  template <typename Number>
  Number number(const YAML::Node& map, const char* key) const {
    const YAML::Node node = map[key];
    if (!node) fail(map, std::string("no '") + key + "'");
    try {
      return node.as<Number>();
    } catch (const YAML::Exception&) {
      fail(node, std::string("'") + key + "' is not a number: '" + (node.IsScalar() ? node.Scalar() : "") + "'");
    }
  }

  bool truth(const YAML::Node& map, const char* key) const {
    try {
      return map[key].as<bool>();
    } catch (const YAML::Exception&) {
      fail(map[key], std::string("'") + key + "' is not true or false");
    }
  }

  template <typename Enum>
  Enum named(const YAML::Node& map, const char* key, const std::map<Enum, std::string>& words) const {
    const std::string value = word(map, key, true);
    for (const auto& [e, w] : words)
      if (w == value) return e;
    fail(map[key], std::string("'") + key + "' is not one of the known words: '" + value + "'");
  }

  void read_collector(const YAML::Node& node, CollectorSpec& c) const {
    c.version = word(node, "version");
    c.description = word(node, "description");
    if (const YAML::Node flag = node["flag"]) {
      if (!flag.IsMap()) fail(flag, "'flag' is not a map");
      c.flag = word(flag, "name", true);
      c.flag_option = word(flag, "option");
      c.flag_help = word(flag, "help");
      for (const YAML::Node& alias : list(flag, "aliases")) {
        if (!alias.IsMap()) fail(alias, "an alias is a map of word and value");
        c.aliases.push_back({word(alias, "word", true), word(alias, "value")});
      }
    }
    for (const YAML::Node& o : list(node, "options")) {
      if (!o.IsMap()) fail(o, "an option is a map");
      c.options.push_back({word(o, "name", true), named(o, "kind", kKinds), word(o, "default"), number<int64_t>(o, "min"),
                           number<int64_t>(o, "max"), number<int64_t>(o, "bare_unit_ns"), word(o, "help")});
    }
    for (const YAML::Node& hook : list(node, "host_hooks")) {
      const std::string name = hook.IsScalar() ? hook.Scalar() : "";
      if (std::find(std::begin(kHooks), std::end(kHooks), name) == std::end(kHooks))
        fail(hook, "unknown host hook '" + name + "' (check, describe_values, leave_out)");
      c.host_hooks.push_back(name);
    }
    if (node["works_after_attach"]) c.works_after_attach = truth(node, "works_after_attach");
  }

  void read_analysis(const YAML::Node& node, AnalysisSpec& a) const {
    a.version = word(node, "version");
    for (const YAML::Node& m : list(node, "metrics")) {
      if (!m.IsMap()) fail(m, "a metric is a map");
      a.metrics.push_back({word(m, "keyword", true), word(m, "title"), named(m, "unit", kUnits),
                           number<uint32_t>(m, "flavors"), word(m, "description"),
                           m["default_flavors"] ? number<uint32_t>(m, "default_flavors") : 0u,
                           m["hidden_by_default"] && truth(m, "hidden_by_default")});
    }
    for (const YAML::Node& d : list(node, "derived_metrics")) {
      if (!d.IsMap()) fail(d, "a derived metric is a map");
      a.derived_metrics.push_back({word(d, "keyword", true), word(d, "title"), word(d, "numerator", true),
                                   word(d, "denominator", true), word(d, "description")});
    }
    for (const YAML::Node& v : list(node, "views")) {
      if (!v.IsMap()) fail(v, "a view is a map");
      a.views.push_back({word(v, "command", true), word(v, "help")});
    }
    if (node["configures"]) a.configures = truth(node, "configures");
  }

  std::filesystem::path file_;
};

}  // namespace

ManifestData read_manifest(const std::filesystem::path& file) { return ManifestReader(file).read(); }

}  // namespace lumen::host
