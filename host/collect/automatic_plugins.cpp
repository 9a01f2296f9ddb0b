#include "automatic_plugins.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "option_value.h"

namespace lumen::collect {

namespace {

struct AutomaticRule {
  std::vector<std::string> needs;
  std::vector<std::string> with;
};

// A missing or unreadable file is no rule: the plugin is planned only when
// asked for.
bool read_rule(const std::filesystem::path& file, AutomaticRule* rule) {
  std::ifstream in(file);
  if (!in) return false;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key, word;
    words >> key;
    std::vector<std::string>* list = key == "needs" ? &rule->needs : key == "with" ? &rule->with : nullptr;
    if (list == nullptr) continue;  // a comment, or a key of a later version
    while (words >> word) list->push_back(word);
  }
  return !rule->needs.empty() || !rule->with.empty();
}

// The value a plugin on the "with" line was planned with for option `name`.
const std::string* planned_value(const CollectionPlan& plan, const std::vector<std::string>& with,
                                 const std::string& name) {
  for (const PlannedPlugin& p : plan.plugins) {
    if (std::find(with.begin(), with.end(), p.name) == with.end()) continue;
    for (const auto& [option, value] : p.options)
      if (option == name) return &value;
  }
  return nullptr;
}

bool planned(const CollectionPlan& plan, const std::string& name) {
  return std::any_of(plan.plugins.begin(), plan.plugins.end(),
                     [&](const PlannedPlugin& p) { return p.name == name; });
}

bool turned_off(const CollectRequest& request, const lumen_collector_descriptor& d) {
  for (const auto& [flag, value] : request.plugin_flags)
    if (d.flag.flag != nullptr && flag == d.flag.flag && value == "off") return true;
  return false;
}

}  // namespace

std::vector<std::string> add_automatic_plugins(CollectionPlan& plan, const std::vector<std::string>& needed,
                                               const CollectRequest& request,
                                               const std::map<std::string, InstalledPlugin>& installed) {
  std::vector<std::string> added;
  for (const auto& [name, plugin] : installed) {
    AutomaticRule rule;
    const lumen_collector_descriptor& d = *plugin.collector.descriptor;
    if (planned(plan, name) || turned_off(request, d) ||
        !read_rule(plugin.files.collector_path().parent_path() / "automatic", &rule))
      continue;
    if (!std::all_of(rule.with.begin(), rule.with.end(), [&](const std::string& w) { return planned(plan, w); }))
      continue;
    if (!rule.needs.empty() && std::none_of(rule.needs.begin(), rule.needs.end(), [&](const std::string& soname) {
          return std::find(needed.begin(), needed.end(), soname) != needed.end();
        }))
      continue;
    PlannedPlugin automatic{name, d.version, d.data_file, plugin.files.collector_path(), {}};
    for (size_t i = 0; i < d.option_count; ++i) {
      if (const std::string* shared = planned_value(plan, rule.with, d.options[i].name)) {
        automatic.options.emplace_back(d.options[i].name, *shared);
        continue;
      }
      const host::CanonicalValue canonical = host::canonical_option_value(d.options[i], d.options[i].default_value);
      if (!canonical.value) throw UsageError("default of option '" + std::string(d.options[i].name) +
                                             "' of plugin '" + name + "': " + canonical.problem);
      automatic.options.emplace_back(d.options[i].name, *canonical.value);
    }
    plan.plugins.push_back(std::move(automatic));
    added.push_back(name);
  }
  return added;
}

}  // namespace lumen::collect
