#include "default_metrics.h"

#include <set>
#include <sstream>

#include "metric_spec.h"

namespace lumen::analysis {

namespace {

// One item of a spec: its flavor letters, its visibility characters and
// its keyword ("ei%." and "totalcpu" in "ei%.totalcpu"). A keyword may
// start with a flavor letter: a letter is a flavor only when a visibility
// character or another flavor follows it.
struct SpecItem {
  std::string flavors;
  std::string visibility;
  std::string keyword;
};

SpecItem split_item(const std::string& item) {
  SpecItem parts;
  size_t i = 0;
  for (; i < item.size() && std::string("eia").find(item[i]) != std::string::npos; ++i) {
    if (i + 1 >= item.size() || std::string(".%+!eia").find(item[i + 1]) == std::string::npos) break;
    parts.flavors += item[i];
  }
  for (; i < item.size() && std::string(".%+!").find(item[i]) != std::string::npos; ++i) parts.visibility += item[i];
  parts.keyword = item.substr(i);
  return parts;
}

std::vector<std::string> items_of(const std::vector<std::string>& lines) {
  std::vector<std::string> items;
  for (const std::string& line : lines) {
    std::stringstream parts(line);
    for (std::string item; std::getline(parts, item, ':');)
      if (!item.empty()) items.push_back(item);
  }
  return items;
}

uint32_t flavor_bit(char letter) {
  return letter == 'e' ? LUMEN_FLAVOR_EXCLUSIVE : letter == 'i' ? LUMEN_FLAVOR_INCLUSIVE : LUMEN_FLAVOR_ATTRIBUTED;
}

// The item for one metric, with the flavors it has (without flavor
// letters: its default flavors); "" when it has none of those asked for.
std::string item_for(const SpecItem& parts, const MetricDef& metric) {
  std::string flavors;
  const uint32_t offered = parts.flavors.empty() ? metric.default_flavors : metric.flavors;
  for (const char letter : parts.flavors.empty() ? std::string("ei") : parts.flavors)
    if (offered & flavor_bit(letter)) flavors += letter;
  if (flavors.empty()) return "";
  return flavors + (parts.visibility.empty() ? "." : parts.visibility) + metric.keyword;
}

}  // namespace

std::optional<std::string> default_metric_spec_from(const std::vector<std::string>& dmetrics,
                                                    const MetricRegistry& registry) {
  std::set<std::string> named;
  std::vector<std::string> spec;
  bool visible = false;
  auto add = [&](const SpecItem& parts, const MetricDef& metric) {
    if (!named.insert(metric.keyword).second) return;
    if (!metric.split_of.empty() && !registry.find(metric.split_of)) return;  // nothing to split here
    const std::string item = item_for(parts, metric);
    if (item.empty()) return;
    spec.push_back(item);
    visible = visible || parts.visibility.find('!') == std::string::npos;
  };
  for (const std::string& item : items_of(dmetrics)) {
    const SpecItem parts = split_item(item);
    if (parts.keyword == "name") {
      spec.push_back("name");
    } else if (parts.keyword == "any") {
      // Every metric not named before, as the default list would show it:
      // one its plugin hides by default stays hidden.
      const SpecItem hidden{parts.flavors, std::string(1, '!'), parts.keyword};
      for (const MetricDef& metric : registry.metrics()) add(metric.hidden_by_default ? hidden : parts, metric);
    } else if (const std::optional<size_t> index = registry.find(parts.keyword)) {
      add(parts, registry.metrics()[*index]);
    }
  }
  if (!visible) return std::nullopt;
  std::string text;
  for (const std::string& item : spec) text += (text.empty() ? "" : ":") + item;
  return text;
}

std::optional<std::string> default_sort_spec_from(const std::vector<std::string>& dsort, const MetricRegistry& registry) {
  for (const std::string& item : items_of(dsort)) {
    const SpecItem parts = split_item(item);
    if (parts.keyword == "name") return "name";
    if (parts.keyword == "any") return std::nullopt;
    if (const std::optional<size_t> index = registry.find(parts.keyword)) {
      const MetricDef& metric = registry.metrics()[*index];
      for (const char letter : parts.flavors.empty() ? std::string("e") : parts.flavors)
        if (metric.flavors & flavor_bit(letter)) return std::string(1, letter) + "." + metric.keyword;
    }
  }
  return std::nullopt;
}

}  // namespace lumen::analysis
