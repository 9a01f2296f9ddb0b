// The collection plan as collect wrote it for the runtime ("collector.plan"):
// which collector halves to start and their canonical option values. Plain
// lines, so the target needs no YAML library:
//   lumen-plan 1
//   plugin NAME PATH
//   option KEY VALUE          (belongs to the plugin line above it)
//   follow on|off|=REGEX      which descendant processes are collected
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace lumen::collector {

struct PlannedPlugin {
  std::string name;
  std::string path;
  std::vector<std::pair<std::string, std::string>> options;
};

struct RuntimePlan {
  std::vector<PlannedPlugin> plugins;
  std::string follow = "on";
};

// Not signal-safe. On failure returns false with a reason in `error`.
bool read_runtime_plan(const std::string& path, RuntimePlan& plan, std::string& error);

}  // namespace lumen::collector
