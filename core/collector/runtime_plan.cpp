#include "runtime_plan.h"

#include <fstream>
#include <sstream>

namespace lumen::collector {

bool read_runtime_plan(const std::string& path, RuntimePlan& plan, std::string& error) {
  std::ifstream in(path);
  if (!in) {
    error = "cannot read " + path;
    return false;
  }
  std::string line;
  int line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    std::istringstream words(line);
    std::string word;
    words >> word;
    if (word.empty() || word[0] == '#') continue;
    if (word == "lumen-plan") {
      int version = 0;
      words >> version;
      if (version != 1) {
        error = path + ":" + std::to_string(line_number) + ": plan version " + std::to_string(version) +
                " is not supported";
        return false;
      }
    } else if (word == "plugin") {
      PlannedPlugin plugin;
      words >> plugin.name;
      std::getline(words >> std::ws, plugin.path);
      plan.plugins.push_back(plugin);
    } else if (word == "samples") {
      words >> plan.sample_period_ns;
    } else if (word == "sample_signal") {
      words >> plan.sample_signal;
    } else if (word == "pause_signal") {
      std::string paused;
      words >> plan.pause_signal >> paused;
      plan.start_paused = paused == "paused";
    } else if (word == "window") {
      words >> plan.window_start_ns >> plan.window_end_ns;
    } else if (word == "origin_ns") {
      words >> plan.origin_ns;
    } else if (word == "size_limit") {
      words >> plan.size_limit_bytes;
    } else if (word == "follow") {
      std::getline(words >> std::ws, plan.follow);
    } else if (word == "option" && !plan.plugins.empty()) {
      std::string key, value;
      words >> key;
      std::getline(words >> std::ws, value);
      plan.plugins.back().options.emplace_back(key, value);
    } else {
      error = path + ":" + std::to_string(line_number) + ": cannot read '" + line + "'";
      return false;
    }
  }
  return true;
}

}  // namespace lumen::collector
