#include "metric_spec.h"

#include <algorithm>
#include <sstream>

namespace lumen::analysis {

namespace {

std::string available(const MetricRegistry& registry) {
  std::string list;
  for (const MetricDef& m : registry.metrics()) list += (list.empty() ? "" : ", ") + m.keyword;
  return list.empty() ? "none (the experiments hold no data)" : list;
}

size_t metric_index(const std::string& keyword, const MetricRegistry& registry, const std::string& item) {
  const auto index = registry.find(keyword);
  if (!index) throw SpecError("unknown metric '" + keyword + "' in '" + item + "'; available: " + available(registry));
  return *index;
}

uint32_t flavor_bit(Flavor f) {
  switch (f) {
    case Flavor::Exclusive: return LUMEN_FLAVOR_EXCLUSIVE;
    case Flavor::Inclusive: return LUMEN_FLAVOR_INCLUSIVE;
    case Flavor::Attributed: return LUMEN_FLAVOR_ATTRIBUTED;
  }
  return 0;
}

std::string expanded_spec(const std::string& spec, const MetricRegistry& registry);

}  // namespace

char flavor_letter(Flavor flavor) {
  return flavor == Flavor::Exclusive ? 'e' : flavor == Flavor::Inclusive ? 'i' : 'a';
}

std::string flavor_word(Flavor flavor) {
  return flavor == Flavor::Exclusive ? "Exclusive" : flavor == Flavor::Inclusive ? "Inclusive" : "Attributed";
}

std::string column_key(const MetricColumn& column, const MetricRegistry& registry) {
  return std::string(1, flavor_letter(column.flavor)) + (column.percent ? ".%" : ".") +
         registry.metrics()[column.metric].keyword;
}

namespace {

// "default", "all" and "hwc" (with any flavor and visibility in front)
// written out as the metrics they stand for.
std::string expanded_spec(const std::string& spec, const MetricRegistry& registry) {
  std::string out;
  std::stringstream items(spec);
  for (std::string item; std::getline(items, item, ':');) {
    // Flavor letters count as such only before a visibility or another
    // flavor, as parse_metric_spec reads them ("all" starts with 'a').
    size_t k = 0;
    while (k + 1 < item.size() && std::string("eia").find(item[k]) != std::string::npos &&
           std::string(".%+!eia").find(item[k + 1]) != std::string::npos)
      ++k;
    while (k < item.size() && std::string(".%+!").find(item[k]) != std::string::npos) ++k;
    const std::string prefix = item.substr(0, k);
    const std::string keyword = item.substr(k);
    const bool keyword_is_metric = registry.find(keyword).has_value();
    if (item == "default" && !keyword_is_metric) {
      out += default_metric_spec(registry) + ":";
      continue;
    }
    if ((keyword != "all" && keyword != "hwc") || keyword_is_metric) {
      out += item + ":";
      continue;
    }
    uint32_t needed = 0;
    for (const char c : prefix) needed |= c == 'e' ? LUMEN_FLAVOR_EXCLUSIVE : c == 'i' ? LUMEN_FLAVOR_INCLUSIVE
                                          : c == 'a' ? LUMEN_FLAVOR_ATTRIBUTED : 0;
    if (needed == 0) needed = LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE;
    bool any = false;
    for (size_t m = 0; m < registry.size(); ++m) {
      const MetricDef& def = registry.metrics()[m];
      if ((def.flavors & needed) != needed) continue;
      if (keyword == "hwc" && registry.plugin_of(m) != "hwc") continue;
      out += prefix + def.keyword + ":";
      any = true;
    }
    if (!any)
      throw SpecError("'" + item + "': " + (keyword == "hwc" ? "no experiment recorded hardware counters"
                                                             : "no metric has those flavors"));
  }
  return out;
}

}  // namespace

MetricSelection parse_metric_spec(const std::string& spec, const MetricRegistry& registry) {
  MetricSelection selection;
  bool name_seen = false;
  std::stringstream items(expanded_spec(spec, registry));
  std::string item;
  while (std::getline(items, item, ':')) {
    if (item.empty()) continue;
    if (item == "name") {
      selection.name_position = selection.columns.size();
      name_seen = true;
      continue;
    }
    std::vector<Flavor> flavors;
    size_t i = 0;
    for (; i < item.size() && (item[i] == 'e' || item[i] == 'i' || item[i] == 'a'); ++i) {
      // A keyword may itself start with these letters: a flavor letter is
      // only one when a visibility character or another flavor follows.
      if (i + 1 >= item.size() || std::string(".%+!eia").find(item[i + 1]) == std::string::npos) break;
      flavors.push_back(item[i] == 'e' ? Flavor::Exclusive : item[i] == 'i' ? Flavor::Inclusive : Flavor::Attributed);
    }
    bool value = false, percent = false, hidden = false;
    for (; i < item.size() && std::string(".%+!").find(item[i]) != std::string::npos; ++i) {
      value = value || item[i] == '.' || item[i] == '+';
      percent = percent || item[i] == '%';
      hidden = hidden || item[i] == '!';
    }
    const std::string keyword = item.substr(i);
    if ((keyword == "size" || keyword == "address") && !registry.find(keyword)) {
      (keyword == "size" ? selection.show_size : selection.show_address) = !hidden;
      continue;
    }
    const size_t metric = metric_index(keyword, registry, item);
    if (flavors.empty()) flavors = {Flavor::Exclusive, Flavor::Inclusive};
    // A ratio has no share of <Total>: "%CPI" shows the ratio itself.
    if (registry.metrics()[metric].ratio_of && percent) value = true, percent = false;
    if (!value && !percent) value = true;
    if (hidden) continue;
    for (const Flavor f : flavors) {
      if ((registry.metrics()[metric].flavors & flavor_bit(f)) == 0)
        throw SpecError("metric '" + keyword + "' has no " + flavor_word(f) + " flavor");
      if (value) selection.columns.push_back({f, metric, false});
      if (percent) selection.columns.push_back({f, metric, true});
    }
  }
  if (!name_seen) selection.name_position = selection.columns.size();
  return selection;
}

SortKey parse_sort_spec(const std::string& written, const MetricRegistry& registry) {
  const bool reverse = written.size() > 1 && written[0] == '-';
  const std::string spec = reverse ? written.substr(1) : written;
  if (spec == "name") return {true, reverse, Flavor::Exclusive, 0};
  SortKey key;
  key.reverse = reverse;
  size_t i = 0;
  if (spec.size() > 1 && std::string("eia").find(spec[0]) != std::string::npos &&
      std::string(".%+!").find(spec[1]) != std::string::npos) {
    key.flavor = spec[0] == 'e' ? Flavor::Exclusive : spec[0] == 'i' ? Flavor::Inclusive : Flavor::Attributed;
    i = 1;
  }
  while (i < spec.size() && std::string(".%+!").find(spec[i]) != std::string::npos) ++i;
  key.metric = metric_index(spec.substr(i), registry, spec);
  return key;
}

std::optional<SortKey> visible_sort_key(const std::string& spec, const MetricSelection& shown,
                                        const MetricRegistry& registry) {
  std::stringstream items(spec);
  for (std::string item; std::getline(items, item, ':');) {
    if (item.empty()) continue;
    const SortKey key = parse_sort_spec(item, registry);
    if (key.by_name || std::any_of(shown.columns.begin(), shown.columns.end(), [&](const MetricColumn& c) {
          return c.metric == key.metric && c.flavor == key.flavor;
        }))
      return key;
  }
  return std::nullopt;
}

std::string default_metric_spec(const MetricRegistry& registry) {
  // What each plugin declares: a metric hidden by default (a detail of
  // another shown, such as User CPU Time of Total CPU Time) is asked for by
  // name, and one shows only its default flavors (inclusive-only counts).
  // As gprofng, only the sort metric (by default the first shown) has its
  // percentages beside it, so a function list of several data types fits a
  // terminal.
  std::string spec;
  bool sort_metric = true;
  for (const MetricDef& m : registry.metrics()) {
    if (!m.split_of.empty() && !registry.find(m.split_of)) continue;  // nothing to split here
    if (m.hidden_by_default) continue;
    const uint32_t flavors = m.default_flavors & (LUMEN_FLAVOR_EXCLUSIVE | LUMEN_FLAVOR_INCLUSIVE);
    if (flavors == 0) continue;
    const std::string visibility = m.ratio_of || !sort_metric ? "." : ".%";
    sort_metric = false;
    if (flavors & LUMEN_FLAVOR_EXCLUSIVE) spec += "e" + visibility + m.keyword + ":";
    if (flavors & LUMEN_FLAVOR_INCLUSIVE) spec += "i" + visibility + m.keyword + ":";
  }
  return spec + "name";
}

}  // namespace lumen::analysis
