#include "plugin_hooks.h"

#include <iostream>
#include <stdexcept>
#include <vector>

namespace lumen::collect {

namespace {

// "-h" for a plugin that owns a flag, else its name: how messages name it.
std::string named(const InstalledPlugin& installed, const std::string& plugin) {
  const char* flag = installed.collector.descriptor->flag.flag;
  return flag != nullptr ? "-" + std::string(flag) : plugin;
}

std::vector<lumen_option_value> option_values(const PlannedPlugin& p) {
  std::vector<lumen_option_value> values;
  for (const auto& [key, value] : p.options) values.push_back({key.c_str(), value.c_str()});
  return values;
}

// Runs the plugin's leave_out hook; true when nothing of it remains.
bool leave_out_here(const lumen_collector_hooks& hooks, PlannedPlugin& plugin, const std::string& who,
                    std::vector<LeftOut>& left_out) {
  struct Context {
    PlannedPlugin* plugin;
    const std::string* who;
    std::vector<LeftOut>* left_out;
    std::vector<std::pair<std::string, std::string>> changes;
  } context{&plugin, &who, &left_out, {}};
  const std::vector<lumen_option_value> values = option_values(plugin);
  const int nothing_left = hooks.leave_out(
      values.data(), values.size(),
      [](void* opaque, const char* name, const char* value) {
        static_cast<Context*>(opaque)->changes.emplace_back(name, value);
      },
      [](void* opaque, const char* what, const char* reason) {
        auto* c = static_cast<Context*>(opaque);
        std::cerr << "collect: " << *c->who << ": " << reason << "; " << what
                  << " is left out, and the target runs without it\n";
        c->left_out->push_back({c->plugin->name, what, reason});
      },
      &context);
  // The option values above point into plugin.options: change them only now.
  for (const auto& [name, value] : context.changes)
    for (auto& option : plugin.options)
      if (option.first == name) option.second = value;
  return nothing_left != 0;
}

}  // namespace

const lumen_collector_hooks* host_hooks(const InstalledPlugin& plugin) { return loaded_collector(plugin).host_hooks; }

void load_planned_collectors(const CollectionPlan& plan, const std::map<std::string, InstalledPlugin>& installed) {
  for (const PlannedPlugin& p : plan.plugins) loaded_collector(installed.at(p.name));
}

void check_plan_here(CollectionPlan& plan, const std::map<std::string, InstalledPlugin>& installed,
                     const PlanOrigins& origins) {
  for (auto p = plan.plugins.begin(); p != plan.plugins.end();) {
    const InstalledPlugin& plugin = installed.at(p->name);
    const lumen_collector_hooks* hooks = host_hooks(plugin);
    const std::string who = named(plugin, p->name);
    if (hooks != nullptr && hooks->leave_out != nullptr && leave_out_here(*hooks, *p, who, plan.left_out)) {
      p = plan.plugins.erase(p);
      continue;
    }
    if (hooks != nullptr && hooks->check != nullptr) {
      const std::vector<lumen_option_value> values = option_values(*p);
      char error[1024] = "";
      if (hooks->check(values.data(), values.size(), error, sizeof error) != 0) {
        // A profile's line names the plugin too; a flag is the plugin's name.
        const auto origin = origins.find(p->name);
        if (origin == origins.end() || origin->second.empty() || origin->second[0] == '-')
          throw std::runtime_error(who + ": " + error);
        throw std::runtime_error(origin->second + ": plugin '" + p->name + "': " + error);
      }
    }
    ++p;
  }
}

}  // namespace lumen::collect
