#include "default_metrics.h"

#include <algorithm>
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

// The flavor letters an item gives one metric, among those it has
// (without flavor letters: its default flavors); "" when it has none of
// those asked for.
std::string flavors_for(const SpecItem& parts, const MetricDef& metric) {
  std::string flavors;
  const uint32_t offered = parts.flavors.empty() ? metric.default_flavors : metric.flavors;
  for (const char letter : parts.flavors.empty() ? std::string("ei") : parts.flavors)
    if (offered & flavor_bit(letter)) flavors += letter;
  return flavors;
}

// One column of the list (one flavor of one metric), or the name's place.
struct Entry {
  std::string keyword;  // "name" for the name column
  char flavor = 0;
  std::string visibility;
};

}  // namespace

std::optional<std::string> default_metric_spec_from(const std::vector<std::string>& dmetrics,
                                                    const MetricRegistry& registry) {
  std::set<std::string> named;
  std::vector<Entry> entries;
  // Every item named is shown, in the order named: naming a metric's flavor
  // again (a user's line after gprofng's rc file, which hides it) moves it
  // to the later place with the later visibility.
  auto add = [&](const SpecItem& parts, const MetricDef& metric) {
    named.insert(metric.keyword);
    if (!metric.split_of.empty() && !registry.find(metric.split_of)) return;  // nothing to split here
    for (const char flavor : flavors_for(parts, metric)) {
      std::erase_if(entries, [&](const Entry& e) { return e.keyword == metric.keyword && e.flavor == flavor; });
      entries.push_back({metric.keyword, flavor, parts.visibility.empty() ? "." : parts.visibility});
    }
  };
  for (const std::string& item : items_of(dmetrics)) {
    const SpecItem parts = split_item(item);
    if (parts.keyword == "name") {
      entries.push_back({"name", 0, ""});
    } else if (parts.keyword == "any") {
      // Every metric not named before, as the default list would show it:
      // one its plugin hides by default stays hidden.
      const SpecItem hidden{parts.flavors, std::string(1, '!'), parts.keyword};
      for (const MetricDef& metric : registry.metrics())
        if (!named.count(metric.keyword)) add(metric.hidden_by_default ? hidden : parts, metric);
    } else if (const std::optional<size_t> index = registry.find(parts.keyword)) {
      add(parts, registry.metrics()[*index]);
    }
  }
  const bool visible = std::any_of(entries.begin(), entries.end(), [](const Entry& e) {
    return e.flavor != 0 && e.visibility.find('!') == std::string::npos;
  });
  if (!visible) return std::nullopt;
  std::string text;
  for (const Entry& e : entries)
    text += (text.empty() ? "" : ":") + (e.flavor == 0 ? e.keyword : e.flavor + e.visibility + e.keyword);
  return text;
}

std::optional<std::string> default_sort_spec_from(const std::vector<std::string>& dsort, const MetricRegistry& registry,
                                                  const MetricSelection& shown) {
  for (const std::string& item : items_of(dsort)) {
    const SpecItem parts = split_item(item);
    if (parts.keyword == "name") return "name";
    if (parts.keyword == "any") return std::nullopt;
    const std::optional<size_t> index = registry.find(parts.keyword);
    if (!index) continue;
    // Only a column shown sorts (as gprofng): a metric hidden is passed over.
    for (const char letter : parts.flavors.empty() ? std::string("e") : parts.flavors) {
      const Flavor flavor = letter == 'e' ? Flavor::Exclusive : letter == 'i' ? Flavor::Inclusive : Flavor::Attributed;
      if (std::any_of(shown.columns.begin(), shown.columns.end(),
                      [&](const MetricColumn& c) { return c.metric == *index && c.flavor == flavor; }))
        return std::string(1, letter) + "." + parts.keyword;
    }
  }
  return std::nullopt;
}

}  // namespace lumen::analysis
